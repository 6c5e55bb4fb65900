import Foundation
import RideKit

/// A page of the track list (`RideStore.tracks`) as both stores read it: the query checked, and the conditions it
/// asks for, in the order they are written. Each store writes them in its own SQL (the same columns, in its own
/// names), reads up to `rowLimit` rows in list order (sort key, then id, both descending) and hands them to
/// `page(_:)`.
package struct TrackListPlan {
    /// One search word: it matches a track whose name, start time as written, or file name holds `pattern`
    /// (`LIKE … ESCAPE '\'`, ASCII letters in lower case: each store folds the column so), or whose kind is `kind`.
    package struct Word {
        package var pattern: String
        package var kind: TrackKind?
    }

    /// Deleted tracks only (the bin), else tracks not deleted.
    package var deletedOnly: Bool
    /// Only tracks that are complete, or a device's live track (listed as it grows; a ride being recorded is not).
    package var completeOrDevice: Bool
    /// The kinds asked for (raw values, sorted), nil for any.
    package var kinds: [String]?
    /// Every word must match.
    package var words: [Word]
    /// Only tracks before this one in list order: `(sortKey, id) < (after.sortKey, after.id)`.
    package var after: (sortKey: Int64, id: String)?
    /// The rows to read: one more than the page, to know whether another page follows.
    package var rowLimit: Int

    private let limit: Int

    /// Checks `query` (its limit, search and cursor) and plans its page.
    package init(_ query: TrackQuery) throws {
        guard (1...TrackQuery.maximumLimit).contains(query.limit) else {
            throw RideStoreError.invalid(field: "limit", reason: "must be between 1 and \(TrackQuery.maximumLimit)")
        }
        try TrackRules.validate(search: query.search)
        after = try query.cursor.map { cursor in
            guard let parsed = TrackRules.parseCursor(cursor) else {
                throw RideStoreError.invalid(field: "cursor", reason: "'\(cursor)' is not a cursor this store returned")
            }
            return parsed
        }
        deletedOnly = query.deletedOnly
        completeOrDevice = !query.includesRecordings
        kinds = query.kinds.map { $0.map(\.rawValue).sorted() }
        // SQLite's LIKE ignores the case of ASCII letters only; PostgreSQL's ILIKE would follow the database's
        // locale: so both fold ASCII letters, the pattern here and the column in their SQL.
        words = query.search.map { search in
            TrackQuery.words(of: search).map { word in
                Word(pattern: "%" + TrackRules.escapeLike(TrackRules.asciiLowercased(word)) + "%", kind: TrackQuery.kind(named: word))
            }
        } ?? []
        limit = query.limit
        rowLimit = query.limit + 1
    }

    /// The page made of the rows read (at most `rowLimit`, in list order), and the cursor of the next one.
    package func page(_ rows: [TrackSummaryRow]) -> TrackPage {
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { "\($0.sortKey).\($0.id.rawValue)" } : nil
        return TrackPage(tracks: page.map(\.summary), nextCursor: next)
    }
}
