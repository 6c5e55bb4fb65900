import Foundation
import Testing

/// The library commands on a data directory of their own, as a user runs them.
@Suite struct LibraryCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String]) throws -> CommandRun {
        try CommandRun.run(arguments + ["--data-dir", folder.appending(path: "data").path])
    }

    func trackID(named name: String) throws -> String {
        let tracks = try listed(["list", "--json"]).tracks
        return try #require(tracks.first { ($0["name"] as? String) == name }?["id"] as? String)
    }

    /// The tracks and the cursor of `list --json` (the shape of `GET /api/tracks`).
    func listed(_ arguments: [String]) throws -> (tracks: [[String: Any]], nextCursor: String?) {
        let list = try run(arguments)
        #expect(list.status == 0, "\(list.error)")
        let page = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
        return (try #require(page["tracks"] as? [[String: Any]]), page["nextCursor"] as? String)
    }

    /// With accounts, the library commands act for `--user NAME`: what anna imports is in her list, not in the
    /// local user's, and an unknown name is refused in words.
    @Test func libraryCommandsActForTheUserNamed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try CommandRun.run(
            ["users", "add", "anna", "--password-stdin", "--data-dir", folder.appending(path: "data").path], input: Data("a long password 1\n".utf8))
        #expect(added.status == 0, "\(added.error)")
        let imported = try run(["import", "--user", "anna", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try listed(["list", "--json", "--user", "anna"]).tracks.count == 1)
        #expect(try listed(["list", "--json"]).tracks.isEmpty)
        // The local user's empty list says whose it is, and how to see anna's.
        #expect(try run(["list", "--json", "--all"]).error.contains("anna): add --user NAME"))
        let id = try #require(try listed(["list", "--json", "--user", "anna"]).tracks.first?["id"] as? String)
        #expect(try run(["show", id, "--json"]).status != 0, "the local user has no such track")
        #expect(try run(["show", id, "--json", "--user", "anna"]).status == 0)
        #expect(try run(["places", "list", "--user", "anna"]).status == 0)
        // The figures over all rides too (records, overview): for the user named, an unknown name refused.
        for command in [["records"], ["overview"]] {
            #expect(try run(command + ["--json", "--user", "anna"]).status == 0)
            let nobody = try run(command + ["--json", "--user", "nobody"])
            #expect(nobody.status != 0 && nobody.error.contains("no user named nobody"))
        }
        let unknown = try run(["list", "--user", "nobody"])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("no user named nobody"))
    }

    @Test func importListShowRenameExportDelete() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let imported = try run(["import", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx"), CommandRun.fixture("gpx/gpxpy")])
        // gpxpy's folder holds two files without a track or route point (one waypoint; none at all): each is named as
        // making no track, and the command ends with 1 for them; every other file is imported.
        #expect(imported.status == 1, "\(imported.error)")
        #expect(imported.error.contains("gpx1.1_with_extensions.gpx: the file has only waypoints"))
        #expect(imported.error.contains("unicode2.gpx: the file has no track or route points"))
        #expect(imported.error.contains("imported"))
        let id = try trackID(named: "GPXTest-TrackPointOnly")
        #expect(id.count == 8)

        // The same file again is not a second track.
        let again = try run(["import", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")])
        #expect(again.output.contains("already imported as \(id)"))

        let show = try run(["show", id, "--json"])
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(show.output.utf8)) as? [String: Any])
        #expect(shown["pointCount"] as? Int == 4142)
        #expect((shown["stats"] as? [String: Any])?["pointCount"] as? Int == 4142)
        let stats = try CommandRun.run(["stats", "--json", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")])
        let fromFile = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        #expect(shown["distanceMeters"] as? Double == fromFile["distanceMeters"] as? Double)

        #expect(try run(["rename", id, "Tokyo day"]).status == 0)
        #expect(try trackID(named: "Tokyo day") == id)

        // Exported GPX reads back to the same points and carries the new name.
        let exported = folder.appending(path: "out.gpx").path
        let export = try run(["export", id, "--to", exported])
        #expect(export.status == 0, "\(export.error)")
        let back = try CommandRun.run(["stats", "--json", exported])
        let backStats = try #require(try JSONSerialization.jsonObject(with: Data(back.output.utf8)) as? [String: Any])
        #expect(backStats["points"] as? Int == 4142)
        #expect(try String(contentsOfFile: exported, encoding: .utf8).contains("<name>Tokyo day</name>"))

        let delete = try run(["delete", id])
        #expect(delete.status == 0)
        #expect(try run(["show", id]).status == 1)
    }

    @Test func aBadFileInAFolderIsReportedAndTheRestImported() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appending(path: "in")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CommandRun.fixture("gpx/gpxpy/route.gpx"), toPath: source.appending(path: "route.gpx").path)
        try FileManager.default.copyItem(
            atPath: CommandRun.fixture("gpx/malformed/jpx__GPX_invalid_extensions.gpx"), toPath: source.appending(path: "broken.gpx").path)
        let imported = try run(["import", source.path])
        #expect(imported.status == 1)
        #expect(imported.error.contains("broken.gpx"))
        #expect(imported.error.contains("mismatched"))
        #expect(try listed(["list", "--json"]).tracks.count == 1)
    }

    /// Strict by default (a waypoint at latitude 95 refuses the file, at its line and column); `--lenient`
    /// imports it and says what it left out, in words and with the place.
    @Test func importIsStrictUnlessLenientWhichSaysWhatItSkipped() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "north.gpx")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="95" lon="6.6"><name>Beyond the pole</name></wpt>
            <trk><trkseg><trkpt lat="46.5" lon="6.6"/><trkpt lat="46.501" lon="6.6"/></trkseg></trk>
            </gpx>
            """.utf8).write(to: file)
        let strict = try run(["import", file.path])
        #expect(strict.status == 1)
        #expect(strict.error.contains("north.gpx:3:1: invalid lat '95'"))
        let lenient = try run(["import", "--lenient", file.path])
        #expect(lenient.status == 0, "\(lenient.error)")
        #expect(lenient.error.contains("north.gpx:3:1: warning: 1 waypoint skipped: latitude 95 is out of range"))
        #expect(try listed(["list", "--json"]).tracks.count == 1)
    }

    @Test func placesAddNoteListExportDelete() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try run(["places", "add", "Bakery", "--at", "47.3769,8.5417", "--note", "Best croissants"])
        #expect(added.status == 0, "\(added.error)")
        let id = String(added.output.prefix(8))
        #expect(try run(["places", "note", id, "Closed on Mondays"]).status == 0)
        let list = try run(["places", "list", "--near", "47.37,8.54"])
        #expect(list.output.contains("Bakery"))
        let gpx = folder.appending(path: "places.gpx").path
        #expect(try run(["export", "--places", "--to", gpx]).status == 0)
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(text.contains("<name>Bakery</name>"))
        #expect(text.contains("Best croissants") && text.contains("Closed on Mondays"))
        // Ids after --places are place ids (parsed as such, not as track ids): the one named is the one exported.
        #expect(try run(["places", "add", "Post office", "--at", "47.3780,8.5400"]).status == 0)
        let chosen = folder.appending(path: "chosen.gpx").path
        #expect(try run(["export", "--places", id, "--to", chosen]).status == 0)
        let chosenText = try String(contentsOfFile: chosen, encoding: .utf8)
        #expect(chosenText.contains("<name>Bakery</name>") && !chosenText.contains("Post office"))
        #expect(try run(["places", "add", "Nowhere", "--at", "95,1"]).status != 0)
        #expect(try run(["places", "delete", id]).status == 0)
    }

    @Test func syncWritesTheDocumentsFolderAndImportsNewFiles() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try run(["import", CommandRun.fixture("gpx/gpxpy/track_with_speed.gpx")]).status == 0)
        let documents = folder.appending(path: "data/Documents")
        let written = try FileManager.default.contentsOfDirectory(atPath: documents.path)
        #expect(written.contains { $0.hasSuffix(".gpx") && $0.contains("track_with_speed") })
        try FileManager.default.copyItem(atPath: CommandRun.fixture("gpx/gpxpy/route.gpx"), toPath: documents.appending(path: "new route.gpx").path)
        let sync = try run(["sync"])
        #expect(sync.status == 0, "\(sync.error)")
        #expect(sync.output.contains("imported"))
        #expect(try run(["sync"]).error.contains("0 imported"))
    }

    /// A GPX file of `count` tracks, "Ride 001" … , track n starting n hours after 2024-01-01T00:00Z.
    func manyTracks(_ count: Int) throws -> String {
        let tracks = (1...count).map { index in
            let start = GPXTimeText.hours(index)
            let end = GPXTimeText.hours(index, minutes: 10)
            let name = "Ride " + String(repeating: "0", count: 3 - String(index).count) + String(index)
            return """
                <trk><name>\(name)</name><trkseg><trkpt lat="47.0" lon="8.0"><time>\(start)</time></trkpt>\
                <trkpt lat="47.01" lon="8.0"><time>\(end)</time></trkpt></trkseg></trk>
                """
        }
        let text = #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">"#
            + tracks.joined() + "</gpx>"
        let path = folder.appending(path: "many.gpx").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func listCutsAtFiftyAndSaysHowToSeeAll() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try run(["import", try manyTracks(106)]).status == 0)
        let table = try run(["list"])
        #expect(table.status == 0, "\(table.error)")
        let lines = table.output.split(separator: "\n")
        #expect(lines.count == 1 + 50)
        // Newest first: the track that started last heads the list.
        #expect(lines[1].contains("Ride 106") && lines[50].contains("Ride 057"))
        #expect(table.error.contains("50 of 106 shown, --all for all"))

        let all = try run(["list", "--all"])
        #expect(all.output.split(separator: "\n").count == 1 + 106)
        #expect(!all.error.contains("shown"))
        #expect(try listed(["list", "--all", "--json"]).tracks.count == 106)
        #expect(try listed(["list", "--all", "--json"]).nextCursor == nil)
    }

    @Test func jsonPagesWalkTheWholeLibraryWithTheCursor() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try run(["import", try manyTracks(106)]).status == 0)
        var names: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try listed(["list", "--json", "--limit", "40"] + (cursor.map { ["--cursor", $0] } ?? []))
            names += page.tracks.compactMap { $0["name"] as? String }
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)  // 40 + 40 + 26
        let expected = (1...106).reversed().map { "Ride " + String(repeating: "0", count: 3 - String($0).count) + String($0) }
        #expect(names == expected)
        // --all from a cursor: the rest of the list.
        let first = try listed(["list", "--json", "--limit", "100"])
        let rest = try listed(["list", "--json", "--all", "--cursor", try #require(first.nextCursor)])
        #expect(rest.tracks.compactMap { $0["name"] as? String } == Array(expected.suffix(6)))
    }

    @Test func badListOptionsSayWhatToDo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let both = try run(["list", "--all", "--limit", "5"])
        #expect(both.status != 0 && both.error.contains("--all lists every track"))
        let bad = try run(["list", "--cursor", "nonsense"])
        #expect(bad.status != 0 && bad.error.contains("not a cursor"))
    }

    @Test func badIDsAndLimitsSayWhatToDo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let show = try run(["show", "not-an-id"])
        #expect(show.status != 0)
        #expect(show.error.contains("is not a track id"))
        #expect(try run(["list", "--limit", "0"]).status != 0)
        #expect(try run(["list", "--help"]).output.contains("--data-dir"))
    }
}

/// RFC 3339 times of the generated tracks.
enum GPXTimeText {
    /// `hours` hours (and `minutes` minutes) after 2024-01-01T00:00:00Z.
    static func hours(_ hours: Int, minutes: Int = 0) -> String {
        let date = Date(timeIntervalSince1970: 1_704_067_200 + Double(hours * 3600 + minutes * 60))
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
