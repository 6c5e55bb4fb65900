import Foundation
import RideKit

/// One user sharing their live position with another user of the same server (issue 23, "family on one server"):
/// the viewer sees the sharer's latest position in the Live tab and as an OwnTracks friend, through the sharer's
/// privacy zones, until `expiresAt` or until the sharer revokes it.
public struct FamilyShare: Sendable, Hashable {
    /// Who shares their position.
    public var sharerID: UserID
    public var sharerName: String
    /// Who sees it.
    public var viewerID: UserID
    public var viewerName: String
    public var createdAt: Date
    /// Nil: until revoked.
    public var expiresAt: Date?

    public init(sharerID: UserID, sharerName: String, viewerID: UserID, viewerName: String, createdAt: Date, expiresAt: Date?) {
        self.sharerID = sharerID
        self.sharerName = sharerName
        self.viewerID = viewerID
        self.viewerName = viewerName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A user's family shares that still work: those they made and those made with them, each by the other's name.
public struct FamilyCircle: Sendable, Hashable {
    /// The users this user shares their position with.
    public var sharing: [FamilyShare]
    /// The users who share their position with this user.
    public var sharedWithMe: [FamilyShare]

    public init(sharing: [FamilyShare] = [], sharedWithMe: [FamilyShare] = []) {
        self.sharing = sharing
        self.sharedWithMe = sharedWithMe
    }
}
