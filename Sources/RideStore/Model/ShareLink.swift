import Foundation
import RideKit

/// A link that shows one place, read-only, to whoever holds its token, with no session (issue 10): the token
/// is the only secret, so it is long and random (made by the caller, e.g. 256 bits from the system's
/// generator) and can be revoked.
public struct ShareLink: Sendable, Hashable {
    /// The token as it appears in the link (`/share/{token}`).
    public var token: String
    /// Whose place it shows.
    public var userID: UserID
    public var placeID: PlaceID
    public var createdAt: Date
    /// When it was revoked; a revoked link shows nothing.
    public var revokedAt: Date?

    public init(token: String, userID: UserID, placeID: PlaceID, createdAt: Date, revokedAt: Date? = nil) {
        self.token = token
        self.userID = userID
        self.placeID = placeID
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// True for a token the store takes: 16 to 128 characters of the base64url alphabet (`A–Z a–z 0–9 - _`).
    public static func isWellFormed(token: String) -> Bool {
        (16...128).contains(token.utf8.count)
            && token.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
            }
    }

    /// Random bytes in a new token: 256 bits, far beyond guessing.
    public static let tokenByteCount = 32

    /// A new token (`SecretToken.make`: 255 bits from the operating system's generator, 43 characters of
    /// base64url, never starting with `-`). What the server and `bikeride places share` use.
    public static func makeToken() -> String { SecretToken.make() }
}
