import Foundation
import Testing

/// `--database-password-file` on the commands that take `--database`: a file that cannot serve stops the command
/// before it connects, with a message naming the file and what is wrong.
@Suite struct DatabasePasswordFileTests {
    /// A port nothing listens on: the commands must fail on the file before they try it.
    static let database = "postgres://rider@127.0.0.1:1/rides?sslmode=disable"

    @Test(arguments: [["migrate"], ["list"], ["users", "list"], ["serve", "--port", "0"]])
    func aMissingPasswordFileIsSaidByName(command: [String]) throws {
        let missing = FileManager.default.temporaryDirectory.appending(path: "bikeride-no-such-\(UUID().uuidString)").path
        let data = FileManager.default.temporaryDirectory.appending(path: "bikeride-data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        // `migrate` has no data directory; the others get one of their own.
        let dataOption = command == ["migrate"] ? [] : ["--data-dir", data]
        let run = try CommandRun.run(command + ["--database", Self.database, "--database-password-file", missing] + dataOption)
        #expect(run.status != 0)
        #expect(run.error.contains(missing) && run.error.contains("does not exist"), "\(run.error)")
        #expect(!run.error.contains("cannot reach"), "\(run.error)")
    }

    @Test func anEmptyPasswordFileIsRefused() throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "bikeride-password-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("\n".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try CommandRun.run(["migrate", "--database", Self.database, "--database-password-file", file])
        #expect(run.status != 0 && run.error.contains("is empty"), "\(run.error)")
    }

    @Test func aPasswordFileWithoutADatabaseIsRefused() throws {
        let data = FileManager.default.temporaryDirectory.appending(path: "bikeride-data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let run = try CommandRun.run(["list", "--data-dir", data, "--database-password-file", "/etc/hostname"])
        #expect(run.status != 0 && run.error.contains("no database"), "\(run.error)")
    }
}
