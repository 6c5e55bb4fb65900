import Foundation
import Testing

import RideKit
@testable import RideStore

/// A store for one test, and the folder it lives in (removed when the test ends).
final class TestStore: @unchecked Sendable {
    let folder: URL
    let store: any RideStore
    let sqlite: SQLiteRideStore

    /// A real SQLite file in a fresh temporary folder (the default: what users run), or memory.
    init(inMemory: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "ridestore-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        sqlite = inMemory ? try SQLiteRideStore(inMemory: .init()) : try SQLiteRideStore(path: folder.appending(path: "bikeride.sqlite").path)
        store = sqlite
    }

    var databasePath: String { folder.appending(path: "bikeride.sqlite").path }
    var documents: URL { folder.appending(path: "Documents") }

    func library(documents: Bool = false) async throws -> TrackLibrary {
        TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: documents ? self.documents : nil)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Rows in every table: an SQLite-level check that a failed operation left nothing behind.
    func rowCounts() async throws -> [String: Int] {
        try await sqlite.writer.read { db in
            var counts: [String: Int] = [:]
            for table in ["user", "device", "trackImport", "track", "segment", "pointBlock", "recording", "place", "note", "photo", "label", "placeLabel", "documentFile"] {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1
            }
            return counts
        }
    }
}

/// What the interface shows of a user's data: tracks (deleted too), places, labels, files — for "nothing changed".
struct VisibleState: Equatable {
    var tracks: [TrackSummary]
    var deleted: [TrackSummary]
    var places: [Place]
    var labels: [PlaceLabel]
    var documents: [DocumentFile]

    static func of(_ store: any RideStore, userID: UserID) async throws -> VisibleState {
        VisibleState(
            tracks: try await store.tracks(TrackQuery(limit: 1000, includesRecordings: true), userID: userID).tracks,
            deleted: try await store.tracks(TrackQuery(limit: 1000, includesRecordings: true, deletedOnly: true), userID: userID).tracks,
            places: try await store.places(PlaceQuery(), userID: userID),
            labels: try await store.labels(userID: userID),
            documents: try await store.documentFiles(userID: userID))
    }
}

/// Synthetic rides written as GPX: a straight line north at 5 m a second, with elevation and heart rate.
enum GeneratedRide {
    static func document(points count: Int, name: String = "Generated", start: Int64 = 1_714_808_400) -> GPXDocument {
        var points: [TrackPoint] = []
        points.reserveCapacity(count)
        for index in 0..<count {
            points.append(
                // Rounded to the decimals a GPS app writes (7 for degrees, 1 for metres).
                TrackPoint(
                    latitude: ((37.3 + Double(index) * 0.000045) * 1e7).rounded() / 1e7,
                    longitude: ((-122.03 + Double(index % 100) * 0.000001) * 1e7).rounded() / 1e7,
                    elevation: Double(700 + index % 200) / 10, time: GPXTime(secondsSince1970: start + Int64(index)),
                    heartRate: Double(120 + index % 40)))
        }
        return GPXDocument(tracks: [Track(name: name, segments: [TrackSegment(points: points)])])
    }

    static func write(points count: Int, name: String = "Generated", to url: URL) throws {
        try GPXWriter.data(document(points: count, name: name)).write(to: url)
    }
}

/// The document as export gives it back: GPX always comes back as 1.1 from the writer, so the version read and
/// the creator are what they were.
func expectSameDocument(_ actual: GPXDocument, _ expected: GPXDocument, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.metadata == expected.metadata, "\(label): metadata", sourceLocation: sourceLocation)
    #expect(actual.waypoints == expected.waypoints, "\(label): waypoints", sourceLocation: sourceLocation)
    #expect(actual.routes == expected.routes, "\(label): routes", sourceLocation: sourceLocation)
    #expect(actual.extensions == expected.extensions, "\(label): extensions", sourceLocation: sourceLocation)
    #expect(actual.tracks.count == expected.tracks.count, "\(label): track count", sourceLocation: sourceLocation)
    for (index, (a, b)) in zip(actual.tracks, expected.tracks).enumerated() where a != b {
        #expect(a.segments.count == b.segments.count, "\(label): track \(index) segments", sourceLocation: sourceLocation)
        for (s, (x, y)) in zip(a.segments, b.segments).enumerated() where x != y {
            let firstDifferent = zip(x.points, y.points).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record(
                "\(label): track \(index) segment \(s) differs (\(x.points.count) vs \(y.points.count) points; first different: \(String(describing: firstDifferent)))",
                sourceLocation: sourceLocation)
        }
        var headerA = a
        var headerB = b
        headerA.segments = []
        headerB.segments = []
        #expect(headerA == headerB, "\(label): track \(index) header", sourceLocation: sourceLocation)
    }
    #expect(actual == expected, "\(label): documents differ", sourceLocation: sourceLocation)
}
