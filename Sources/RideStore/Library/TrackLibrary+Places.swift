import Foundation
import RideKit

extension TrackLibrary {
    /// How long a deleted place can be restored: then it is purged, with its notes and photo files.
    public static let deletedPlaceRetentionSeconds: TimeInterval = 30 * 86400

    /// Deletes places (restorable with `restorePlaces` for `deletedPlaceRetentionSeconds`), and purges the places of
    /// every user deleted longer ago than that: deleting is what makes room, so no timer is needed.
    public func deletePlaces(_ ids: [PlaceID], now: Date = Date()) async throws -> [PlaceID] {
        let deleted = try await store.deletePlaces(ids: ids, userID: userID)
        _ = try await purgeExpiredPlaces(now: now)
        return deleted
    }

    /// Purges the places (of every user) deleted more than `deletedPlaceRetentionSeconds` ago; returns their ids.
    public func purgeExpiredPlaces(now: Date = Date()) async throws -> [PlaceID] {
        try await store.purgeDeletedPlaces(deletedBefore: now.addingTimeInterval(-Self.deletedPlaceRetentionSeconds))
    }

    /// Places from a GPX file's waypoints, in one transaction: all of them or none.
    ///
    /// Refused (nothing stored) when the file has no waypoint or more than `maximumImportedPlaces`. Names longer
    /// than `maximumPlaceNameLength` characters are cut.
    public func importPlaces(from document: GPXDocument) async throws -> [Place] {
        guard !document.waypoints.isEmpty else {
            throw RideStoreError.invalid(field: "waypoints", reason: "the file has no waypoints (wpt); nothing was stored")
        }
        guard document.waypoints.count <= Self.maximumImportedPlaces else {
            throw RideStoreError.invalid(
                field: "waypoints", reason: "the file has \(document.waypoints.count) waypoints, more than \(Self.maximumImportedPlaces); nothing was stored")
        }
        let places = document.waypoints.map { waypoint in
            var place = NewPlace(waypoint: waypoint)
            place.name = String(place.name.prefix(Self.maximumPlaceNameLength))
            return place
        }
        return try await store.createPlaces(places, userID: userID)
    }

    /// The most waypoints one import makes places of.
    public static let maximumImportedPlaces = 10_000
    /// The longest place name kept (longer ones, from files, are cut).
    public static let maximumPlaceNameLength = 200
}
