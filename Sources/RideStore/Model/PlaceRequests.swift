import Foundation
import RideKit

/// What it takes to pin a place.
public struct NewPlace: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var name: String
    public var address: String?
    /// A first note, if any.
    public var note: String?
    public var labelIDs: [LabelID]
    /// When it was made (a waypoint's time); now when nil.
    public var createdAt: Date?

    public init(
        latitude: Double, longitude: Double, name: String, address: String? = nil, note: String? = nil,
        labelIDs: [LabelID] = [], createdAt: Date? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.address = address
        self.note = note
        self.labelIDs = labelIDs
        self.createdAt = createdAt
    }

    /// A place from a GPX waypoint (see `Waypoint.placeFields`).
    public init(waypoint: Waypoint) {
        let fields = waypoint.placeFields
        self.init(
            latitude: waypoint.latitude, longitude: waypoint.longitude, name: fields.name, address: fields.address,
            note: fields.note, createdAt: fields.createdAt)
    }
}

/// Changes to a place; nil fields stay as they are, an empty `address` clears it.
public struct PlaceChanges: Sendable, Hashable {
    public var name: String?
    public var latitude: Double?
    public var longitude: Double?
    public var address: String?

    public init(name: String? = nil, latitude: Double? = nil, longitude: Double? = nil, address: String? = nil) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.address = address
    }
}

/// Which places to list, in which order.
public struct PlaceQuery: Sendable, Hashable {
    public enum Order: Sendable, Hashable {
        case name
        /// Newest first.
        case createdAt
        /// Nearest first.
        case distance(from: Coordinate)
    }

    /// Places whose name, address or notes contain this text.
    public var search: String?
    /// Places that carry at least one of these labels.
    public var labelIDs: Set<LabelID>?
    public var order: Order
    public var limit: Int
    public var offset: Int

    public init(search: String? = nil, labelIDs: Set<LabelID>? = nil, order: Order = .createdAt, limit: Int = 1000, offset: Int = 0) {
        self.search = search
        self.labelIDs = labelIDs
        self.order = order
        self.limit = limit
        self.offset = offset
    }
}

/// A photo with its bytes.
public struct PhotoData: Sendable, Hashable {
    public var info: PhotoInfo
    public var bytes: Data

    public init(info: PhotoInfo, bytes: Data) {
        self.info = info
        self.bytes = bytes
    }
}
