import Foundation
import RideKit

/// Someone whose data the store keeps apart from everyone else's.
public struct User: Sendable, Hashable, Identifiable {
    public var id: UserID
    public var name: String
    /// The password as a hash the server made (nil for the embedded local user, who never logs in).
    public var passwordHash: String?
    public var createdAt: Date

    public init(id: UserID, name: String, passwordHash: String? = nil, createdAt: Date) {
        self.id = id
        self.name = name
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }

    /// The name of the one user of the embedded single-user setup.
    public static let localName = "local"
}

/// A phone app that posts positions for a user, known by the hash of its token.
public struct Device: Sendable, Hashable, Identifiable {
    public var id: DeviceID
    public var userID: UserID
    public var name: String
    /// A hash of the device's secret token (the server hashes; the store never sees the token).
    public var tokenHash: String
    /// The app's protocol: `owntracks`, `overland`, `osmand`, `gpslogger` …
    public var protocolName: String
    public var createdAt: Date
    public var lastSeenAt: Date?

    public init(
        id: DeviceID, userID: UserID, name: String, tokenHash: String, protocolName: String, createdAt: Date,
        lastSeenAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.tokenHash = tokenHash
        self.protocolName = protocolName
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// What it takes to register a device.
public struct NewDevice: Sendable, Hashable {
    public var name: String
    public var tokenHash: String
    public var protocolName: String

    public init(name: String, tokenHash: String, protocolName: String) {
        self.name = name
        self.tokenHash = tokenHash
        self.protocolName = protocolName
    }
}
