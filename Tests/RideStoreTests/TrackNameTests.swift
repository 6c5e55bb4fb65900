import Foundation
import Testing

import RideKit
@testable import RideStore

/// The name an imported track gets: its own, else the file's, else the first route's, else the file name (both stores).
@Suite struct TrackNameTests {
    static func gpx(metadata: String?, tracks: [String?], routes: [String?] = []) -> Data {
        func name(_ text: String?) -> String { text.map { "<name>\($0)</name>" } ?? "" }
        let point = #"<trkpt lat="47.0" lon="8.0"/><trkpt lat="47.001" lon="8.0"/>"#
        let body = [
            #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">"#,
            metadata.map { "<metadata>\(name($0))</metadata>" } ?? "",
            tracks.map { "<trk>\(name($0))<trkseg>\(point)</trkseg></trk>" }.joined(),
            routes.map { "<rte>\(name($0))<rtept lat=\"47.0\" lon=\"8.0\"/></rte>" }.joined(),
            "</gpx>",
        ]
        return Data(body.joined().utf8)
    }

    static func names(_ kind: StoreKind, _ data: Data, oneTrackPerFile: Bool = false) async throws -> [String] {
        try await withLibrary(kind) { library in
            var options = ImportOptions()
            options.oneTrackPerFile = oneTrackPerFile
            let outcome = try await library.importData(data, fileName: "Evening ride.gpx", options: options)
            guard case .imported(_, let tracks, _) = outcome.result else { throw RideStoreError.conflict("duplicate") }
            return tracks.map(\.name)
        }
    }

    @Test(arguments: StoreKind.allCases) func aTrackKeepsItsOwnName(_ kind: StoreKind) async throws {
        #expect(try await Self.names(kind, Self.gpx(metadata: "Alps", tracks: ["Stage 1", "Stage 2"])) == ["Stage 1", "Stage 2"])
    }

    @Test(arguments: StoreKind.allCases) func aBlankTrackNameTakesTheFilesName(_ kind: StoreKind) async throws {
        #expect(try await Self.names(kind, Self.gpx(metadata: "Alps 2024", tracks: ["  "])) == ["Alps 2024"])
        #expect(try await Self.names(kind, Self.gpx(metadata: "Alps 2024", tracks: ["  "]), oneTrackPerFile: true) == ["Alps 2024"])
    }

    @Test(arguments: StoreKind.allCases) func withoutNamesTheFileNameNamesTheTracks(_ kind: StoreKind) async throws {
        #expect(try await Self.names(kind, Self.gpx(metadata: nil, tracks: [nil])) == ["Evening ride"])
        #expect(try await Self.names(kind, Self.gpx(metadata: nil, tracks: [nil, nil])) == ["Evening ride 1", "Evening ride 2"])
    }

    @Test(arguments: StoreKind.allCases) func oneTrackPerFileFallsBackToTheFirstRoute(_ kind: StoreKind) async throws {
        #expect(try await Self.names(kind, Self.gpx(metadata: nil, tracks: [nil], routes: ["Planned"]), oneTrackPerFile: true) == ["Planned"])
    }

    @Test(arguments: StoreKind.allCases) func aNameOnSeveralLinesBecomesOneLine(_ kind: StoreKind) async throws {
        #expect(try await Self.names(kind, Self.gpx(metadata: nil, tracks: ["Morning\nride "])) == ["Morning ride"])
    }
}
