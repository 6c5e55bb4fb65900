import Foundation
import Testing

/// `bikeride family add|list|remove` (issue 23) on a data directory of its own, with two users.
@Suite struct FamilyCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-family-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], input: String? = nil) throws -> CommandRun {
        try CommandRun.run(arguments + ["--data-dir", folder.appending(path: "data").path], input: input.map { Data($0.utf8) })
    }

    @Test func addListRemoveAndRefuseBadValues() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["anna", "bob"] { #expect(try run(["users", "add", name, "--password-stdin"], input: "a long password\n").status == 0) }
        let added = try run(["family", "add", "bob", "--hours", "24", "--user", "anna"])
        #expect(added.status == 0 && added.output.contains("anna shares their position with bob until"), "\(added.error)")
        // Hours out of range or not a number, oneself, an unknown user: refused, nothing more stored.
        for bad in [["bob", "--hours", "0"], ["bob", "--hours", "8761"], ["bob", "--hours", "nan"], ["bob", "--hours", "two"], ["anna"], ["nobody"]] {
            #expect(try run(["family", "add"] + bad + ["--user", "anna"]).status != 0, "\(bad)")
        }
        let listed = try run(["family", "list", "--json", "--user", "anna"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])
        let sharing = try #require(object["sharing"] as? [[String: Any]])
        #expect(sharing.count == 1 && sharing[0]["user"] as? String == "bob" && sharing[0]["expiresAt"] is String)
        #expect((object["sharedWithMe"] as? [Any])?.isEmpty == true)
        #expect(try run(["family", "list", "--user", "bob"]).output.contains("sharing their position with you:\n  anna"))
        #expect(try run(["family", "remove", "bob", "--user", "anna"]).status == 0)
        #expect(try run(["family", "remove", "bob", "--user", "anna"]).status != 0)
        #expect(try run(["family", "list", "--user", "anna"]).output.contains("you share your position with no one"))
    }
}
