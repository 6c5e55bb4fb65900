import Foundation
import RideKit

// Accounts, sessions, device ingestion and live share links (issue 12) are not on PostgreSQL yet: they need the
// `session` and `deviceFix` tables in a PostgreSQL migration, and the login limiter and live feed moved into the
// database (issue 13). Each call says so (`RideStoreError.unsupported`, 501), none pretends.
extension PostgresRideStore {
    public func users() async throws -> [User] { throw Self.unavailable("users()") }

    public func setPasswordHash(_ hash: String?, userID: UserID) async throws { throw Self.unavailable("setPasswordHash(_:userID:)") }

    public func deleteUser(id: UserID) async throws -> Bool { throw Self.unavailable("deleteUser(id:)") }

    public func createSession(tokenHash: String, userID: UserID, expiresAt: Date) async throws {
        throw Self.unavailable("createSession(tokenHash:userID:expiresAt:)")
    }

    public func sessionUser(tokenHash: String, now: Date) async throws -> User? { throw Self.unavailable("sessionUser(tokenHash:now:)") }

    public func deleteSession(tokenHash: String) async throws { throw Self.unavailable("deleteSession(tokenHash:)") }

    public func deleteSessions(userID: UserID) async throws { throw Self.unavailable("deleteSessions(userID:)") }

    public func device(id: DeviceID, userID: UserID) async throws -> Device? { throw Self.unavailable("device(id:userID:)") }

    public func replaceDeviceToken(id: DeviceID, userID: UserID, tokenHash: String) async throws -> Device {
        throw Self.unavailable("replaceDeviceToken(id:userID:tokenHash:)")
    }

    public func ingest(_ fixes: [TrackerFix], deviceID: DeviceID, userID: UserID, gapSeconds: Double) async throws -> IngestResult {
        throw Self.unavailable("ingest(_:deviceID:userID:gapSeconds:)")
    }

    public func ingest(_ posts: [DevicePost], gapSeconds: Double) async throws -> [Result<IngestResult, RideStoreError>] {
        throw Self.unavailable("ingest(_:gapSeconds:)")
    }

    public func finishIdleDeviceTracks(gapSeconds: Double, now: Date) async throws -> [TrackID] {
        throw Self.unavailable("finishIdleDeviceTracks(gapSeconds:now:)")
    }

    public func deviceFixes(userID: UserID, after sequence: Int64, limit: Int) async throws -> [StoredDeviceFix] {
        throw Self.unavailable("deviceFixes(userID:after:limit:)")
    }

    public func deviceFixes(deviceID: DeviceID, userID: UserID, since: Date, limit: Int) async throws -> [StoredDeviceFix] {
        throw Self.unavailable("deviceFixes(deviceID:userID:since:limit:)")
    }

    public func latestDeviceFixes(userID: UserID) async throws -> [StoredDeviceFix] { throw Self.unavailable("latestDeviceFixes(userID:)") }

    public func lastDeviceFixSequence(userID: UserID) async throws -> Int64 { throw Self.unavailable("lastDeviceFixSequence(userID:)") }

    public func createLiveShare(token: String, deviceID: DeviceID, userID: UserID, expiresAt: Date, untilRideEnds: Bool) async throws
        -> LiveShare
    {
        throw Self.unavailable("createLiveShare(token:deviceID:userID:expiresAt:untilRideEnds:)")
    }

    public func liveShare(token: String, now: Date) async throws -> LiveShare? { throw Self.unavailable("liveShare(token:now:)") }
}
