import Foundation
import RideKit

extension TrackLibrary {
    /// The overview of `year` (RideKit's `Overview`) from the store's rows of the user's tracks, `kind` only when
    /// given, goals measured over the ISO week holding `today` (days since 1970 of the rider's local day). The
    /// server and the command line answer with it alike.
    public func overview(year: Int, kind: TrackKind?, today: Int64) async throws -> Overview {
        let rows = try await store.overviewTracks(userID: userID)
        var activities: [Overview.Activity] = []
        activities.reserveCapacity(rows.count)
        for row in rows where kind == nil || row.kind == kind {
            guard let start = try? GPXTime(parsing: row.startTime) else { continue }
            activities.append(
                Overview.Activity(
                    id: row.id.rawValue, kind: row.kind, start: start, latitude: row.latitude, longitude: row.longitude, distanceMeters: row.distanceMeters,
                    movingSeconds: row.movingSeconds, ascentMeters: row.ascentMeters))
        }
        let goals = try await store.weeklyGoals(userID: userID).filter { kind == nil || $0.kind == kind }
        return Overview(
            year: year, activities: activities, goals: goals.map { Overview.Goal(kind: $0.kind, measure: $0.measure.rawValue, target: $0.target) },
            today: today)
    }
}

extension TrackLibrary {
    /// Measures the best efforts of every track that lacks them or has them from an older measurement
    /// (`RideStore.remeasureEfforts`), batch after batch until none is left; returns how many tracks were looked at.
    /// The server runs it in the background when it starts; `bikeride records` before it answers.
    public static func remeasureEfforts(
        in store: any RideStore, batch: Int = 50, progress: @Sendable (Int) async -> Void = { _ in }
    ) async throws -> Int {
        var total = 0
        while true {
            try Task.checkCancellation()
            let done = try await store.remeasureEfforts(limit: batch)
            guard done > 0 else { return total }
            total += done
            await progress(total)
        }
    }
}

extension TrackLibrary {
    /// The explorer tiles of the user's tracks (of `kind`, when given) counted for `year` (`ExplorerSummary`), from the
    /// heatmap's index (built first if it never was); nil while another request builds that index (it answers
    /// `busy`), so that the overview is never held up by it.
    public func explorerSummary(year: Int, kind: TrackKind?) async throws -> ExplorerSummary? {
        do {
            return ExplorerSummary(visits: try await store.explorerTileYears(kind: kind, userID: userID), year: year)
        } catch RideStoreError.busy {
            return nil
        }
    }
}
