import Foundation
import TestSupport
import Testing

@Suite struct ServeCommandTests {
    @Test func aBadPortIsRefusedWithWhatToDo() throws {
        let run = try CommandRun.run(["serve", "--port", "70000"])
        #expect(run.status != 0)
        #expect(run.error.contains("--port must be 0–65535"))
    }

    @Test func aCertificateWithoutAKeyIsRefused() throws {
        let run = try CommandRun.run(["serve", "--tls-cert", "/etc/hostname", "--port", "0"])
        #expect(run.status != 0)
        #expect(run.error.contains("both a certificate and a key"))
    }

    @Test func aTileFileThatIsNotMBTilesIsRefused() throws {
        let run = try CommandRun.run(["serve", "--tiles", "/etc/hostname", "--port", "0", "--data-dir", NSTemporaryDirectory() + "bikeride-cli"])
        #expect(run.status != 0)
        #expect(run.error.contains("not an MBTiles file"))
    }

    @Test func theServerPrintsItsAddressAndDataDirectoryAndStopsOnSIGTERM() throws {
        let process = TestProcess()
        process.executableURL = CommandRun.executable
        let dataDirectory = NSTemporaryDirectory() + "bikeride-serve-\(UUID().uuidString)"
        process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("data directory") && Date() < deadline {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        #expect(text.contains("serving http://127.0.0.1:"))
        #expect(text.contains("data directory: \(dataDirectory)"))
        #expect(FileManager.default.fileExists(atPath: dataDirectory))
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(rest.contains("bikeride stopped"))
    }
}
