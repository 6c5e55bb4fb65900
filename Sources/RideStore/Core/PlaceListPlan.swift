import Foundation
import RideKit

/// The places list (`RideStore.places`) as both stores read it: the conditions a query asks for, and the order
/// and page. Each store writes the conditions in its own SQL; for the nearest-first order it reads every place
/// that matches and hands them to `nearestFirst(_:)` (the distance is RideKit's, not SQL's).
package struct PlaceListPlan {
    /// A `LIKE … ESCAPE '\'` pattern (ASCII letters in lower case: each store folds the columns so) that the name,
    /// the address or a note must hold; nil for no search.
    package var searchPattern: String?
    /// Places carrying at least one of these labels (sorted), nil for any.
    package var labelIDs: [String]?
    package var order: PlaceQuery.Order
    /// The page: at most `limit` places after the first `offset` (both at least 0).
    package var limit: Int
    package var offset: Int

    package init(_ query: PlaceQuery) {
        if let search = query.search?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
            searchPattern = "%" + TrackRules.escapeLike(TrackRules.asciiLowercased(search)) + "%"
        }
        labelIDs = query.labelIDs.map { $0.map(\.rawValue).sorted() }
        order = query.order
        limit = max(0, query.limit)
        offset = max(0, query.offset)
    }

    /// For `.distance(from:)`: the matching places nearest first (then by id), paged; others as they are.
    package func nearestFirst<Row, Kind>(_ rows: [Row], id: (Row) -> ID<Kind>, coordinate: (Row) -> Coordinate) -> [Row] {
        guard case .distance(let origin) = order else { return rows }
        let sorted = rows.map { (row: $0, distance: origin.distanceMeters(to: coordinate($0)), id: id($0)) }
            .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
            .map(\.row)
        return Array(sorted.dropFirst(offset).prefix(limit))
    }
}
