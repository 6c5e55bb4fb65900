import Foundation

/// PROJ's `cs2cs` as the independent check of the EGM96 geoid (Debian's proj-bin and proj-data; scripts/test.sh
/// installs them): it converts WGS-84 heights above the ellipsoid (EPSG:4979) to EGM96 heights (EPSG:4326+5773)
/// from NGA's grid itself.
public enum PROJGeoid {
    /// The `cs2cs` program, nil when it is not installed.
    public static let cs2cs: String? = ["/usr/bin/cs2cs", "/usr/local/bin/cs2cs"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Why a test that needs it is skipped.
    public static let missing = "cs2cs is missing: apt-get install proj-bin proj-data (scripts/test.sh installs them)"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// EGM96's undulation N (the geoid's height above the ellipsoid, metres) at each position, as PROJ computes it:
    /// minus the EGM96 height of a point 0 m above the ellipsoid.
    public static func undulations(_ positions: [(latitude: Double, longitude: Double)]) throws -> [Double] {
        guard let cs2cs else { throw Failure(description: missing) }
        let process = TestProcess()
        process.executableURL = URL(filePath: cs2cs)
        process.arguments = ["-f", "%.4f", "EPSG:4979", "EPSG:4326+5773"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let text = positions.map { "\($0.latitude) \($0.longitude) 0\n" }.joined()
        // Written from another thread: cs2cs answers line by line, and two full pipes would stop both sides.
        let writer = Thread {
            input.fileHandleForWriting.write(Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.count == positions.count else {
            throw Failure(description: "cs2cs answered \(lines.count) lines for \(positions.count) positions")
        }
        let undulations = try lines.map { line in
            guard let height = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.flatMap({ Double($0) }) else {
                throw Failure(description: "cs2cs answered \"\(line)\"")
            }
            return -height
        }
        // Without the grid PROJ falls back to "no change": every N would be 0.
        if positions.count >= 1, undulations.allSatisfy({ $0 == 0 }) {
            throw Failure(description: "cs2cs did not apply the EGM96 grid: is proj-data installed (/usr/share/proj/egm96_15.gtx)?")
        }
        return undulations
    }
}
