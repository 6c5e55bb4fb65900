import Foundation
import Testing

/// `bikeride places label|share|import|export|restore` (issue 10) on a data directory of their own.
@Suite struct PlacesCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-places-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], input: Data? = nil) throws -> CommandRun {
        try CommandRun.run(arguments + ["--data-dir", folder.appending(path: "data").path], input: input)
    }

    func write(_ text: String, _ name: String) throws -> String {
        let file = folder.appending(path: name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    static let waypoints = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <wpt lat="47.3769" lon="8.5417"><name>Bakery</name><cmt>Bahnhofstrasse 1</cmt><desc>Open at 7</desc></wpt>
        <wpt lat="47.3780" lon="8.5400"><name>Post</name></wpt>
        </gpx>
        """

    @Test func importLabelExportShareDeleteRestore() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let imported = try run(["places", "import", try write(Self.waypoints, "in.gpx")])
        #expect(imported.status == 0, "\(imported.error)")
        let lines = imported.output.split(separator: "\n")
        #expect(lines.map { $0.dropFirst(10) } == ["Bakery", "Post"])
        let bakery = String(lines[0].prefix(8))

        let label = try run(["places", "label", "add", "Food", "--colour", "#e53935"])
        #expect(label.status == 0 && label.output.hasSuffix("Food  #E53935\n"), "\(label.output)\(label.error)")
        #expect(try run(["places", "label", "set", bakery, "food"]).output.hasSuffix("Bakery  Food\n"))
        #expect(try run(["places", "label", "list"]).output.contains("Food"))
        #expect(try run(["places", "label", "set", bakery, "Nope"]).status != 0)

        let exported = try run(["places", "export", "--gpx", "--label", "Food"])
        #expect(exported.status == 0)
        #expect(exported.output.contains("<name>Bakery</name>") && !exported.output.contains("<name>Post</name>"))
        #expect(exported.output.contains("<cmt>Bahnhofstrasse 1</cmt>") && exported.output.contains("<desc>Open at 7</desc>"))
        #expect(try run(["places", "export"]).status != 0)  // --gpx says the format

        let share = try run(["places", "share", bakery, "--base-url", "https://ride.example.org/"])
        #expect(share.status == 0)
        let token = String(share.output.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("https://ride.example.org/share/".count))
        #expect(token.count == 43 && share.output.hasPrefix("https://ride.example.org/share/"))
        #expect(try run(["places", "share", token, "--revoke"]).status == 0)
        #expect(try run(["places", "share", token, "--revoke"]).status != 0)

        #expect(try run(["places", "delete", bakery]).status == 0)
        #expect(!(try run(["places", "list"]).output.contains("Bakery")))
        #expect(try run(["places", "restore", bakery]).status == 0)
        #expect(try run(["places", "list"]).output.contains("Bakery"))
        #expect(try run(["places", "restore", bakery]).status != 0)
    }

    /// A file that does not read, or a waypoint the store refuses: nothing of the file is stored.
    @Test func aBadFileStoresNothing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = try run(["places", "import", try write("<gpx><wpt lat=\"1\" lon=\"2\"><name>A</name></wpt>", "broken.gpx")])
        #expect(broken.status != 0 && broken.error.contains("broken.gpx"))
        let empty = try run(["places", "import", try write(#"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"></gpx>"#, "empty.gpx")])
        #expect(empty.status != 0 && empty.error.contains("no waypoints"))
        #expect(try run(["places", "import", folder.appending(path: "missing.gpx").path]).status != 0)
        let list = try run(["places", "list", "--json"])
        #expect(list.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}
