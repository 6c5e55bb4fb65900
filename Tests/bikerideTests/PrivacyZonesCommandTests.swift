import Foundation
import Testing

/// `bikeride privacy-zones add|list|remove|hide-ends` (issue 23) on a data directory of its own.
@Suite struct PrivacyZonesCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-privacy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String]) throws -> CommandRun {
        try CommandRun.run(arguments + ["--data-dir", folder.appending(path: "data").path])
    }

    @Test func addListRemoveAndRefuseBadValues() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try run(["privacy-zones", "add", "--latitude", "-33.8688", "--longitude", "-151.2093", "--radius", "400", "--name", "Home"])
        #expect(added.status == 0, "\(added.error)")
        // Out of range, not a number, a radius out of 100-2000, an unknown user: refused, nothing stored.
        for bad in [["--latitude", "91", "--longitude", "0"], ["--latitude", "nan", "--longitude", "0"], ["--latitude", "1", "--longitude", "181"],
                    ["--latitude", "1", "--longitude", "1", "--radius", "99"], ["--latitude", "1", "--longitude", "1", "--radius", "2001"],
                    ["--latitude", "1", "--longitude", "1", "--user", "nobody"]] {
            #expect(try run(["privacy-zones", "add"] + bad).status != 0, "\(bad)")
        }
        #expect(try run(["privacy-zones", "hide-ends", "300"]).status == 0)
        #expect(try run(["privacy-zones", "hide-ends", "1601"]).status != 0)
        let listed = try run(["privacy-zones", "list", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])
        let zones = try #require(object["zones"] as? [[String: Any]])
        #expect(zones.count == 1 && zones[0]["latitude"] as? Double == -33.8688 && zones[0]["radiusMeters"] as? Double == 400)
        #expect(object["hideEndsMeters"] as? Double == 300)
        let id = try #require(zones[0]["id"] as? String)
        #expect(try run(["privacy-zones", "remove", id]).status == 0)
        #expect(try run(["privacy-zones", "remove", id]).status != 0)
        #expect(try run(["privacy-zones", "list"]).output.contains("no privacy zones"))
    }
}
