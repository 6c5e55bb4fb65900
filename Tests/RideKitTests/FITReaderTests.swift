import Foundation
@testable import RideKit
import TestSupport
import Testing

/// The FIT reader against independent truth: the upstream fitparse suite's expectations (its record CSVs, written
/// by Garmin's FIT SDK dump tool, and what its tests say each broken file must raise), and fitdecode, another
/// reader (Tests/tools/fit_reference.py), on every fixture: the same sessions, laps and positions.
@Suite struct FITReaderTests {
    static let folder = "fit/python-fitparse/"

    static func bytes(_ name: String) throws -> [UInt8] { try Fixtures.bytes(folder + name) }

    /// Every record message of a file, as the decoder reads it.
    struct RecordRow {
        var timestamp: UInt32?
        var heartRate: Int64?
        var cadence: Int64?
        var speed: Double?
        var distance: Double?
        var latitude: Int64?
        var longitude: Int64?
        var altitude: Double?
        var temperature: Int64?
        var compressed: [UInt8]?
    }

    static func records(_ name: String) throws -> [RecordRow] {
        var rows: [RecordRow] = []
        let bytes = try bytes(name)
        _ = try bytes.withUnsafeBytes { buffer in
            try FITDecoder.decode(buffer) { message in
                guard message.globalNumber == FITProfile.Message.record else { return }
                rows.append(
                    RecordRow(
                        timestamp: message.timestamp, heartRate: message.integer(3), cadence: message.integer(4),
                        speed: message.double(73, scale: 1000) ?? message.double(6, scale: 1000),
                        distance: message.double(5, scale: 100), latitude: message.integer(0), longitude: message.integer(1),
                        altitude: message.double(78, scale: 5, offset: 500) ?? message.double(2, scale: 5, offset: 500),
                        temperature: message.integer(13), compressed: message.bytes(8)))
            }
        }
        return rows
    }

    /// The SDK dump tool's CSVs: time in PDT, positions in semicircles; an invalid cadence dumped as 0 and an
    /// invalid position as the last valid one (as the upstream test reads them).
    @Test(arguments: ["garmin-edge-500-activity", "garmin-edge-820-bike", "garmin-fenix-5-bike", "garmin-fenix-5-run", "garmin-fenix-5-walk"])
    func recordsMatchTheSDKsDump(_ name: String) throws {
        let rows = try Self.records(name + ".fit")
        let text = try String(contentsOf: Fixtures.url(Self.folder + name + "-records.csv"), encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == lines.count)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: -7 * 3600)
        formatter.dateFormat = "EEE MMM dd HH:mm:ss 'PDT' yyyy"
        var lastLatitude: Int64?
        var lastLongitude: Int64?
        for (index, (row, line)) in zip(rows, lines).enumerated() {
            let seconds = Double(FITMessage.epochSecondsSince1970) + Double(try #require(row.timestamp))
            #expect(formatter.string(from: Date(timeIntervalSince1970: seconds)) == line[0], "row \(index)")
            #expect(row.heartRate.map(String.init) ?? "" == line[1], "heart rate, row \(index)")
            #expect(row.cadence.map(String.init) ?? "0" == (line[2].isEmpty ? "0" : line[2]) || (row.cadence == nil && line[2].isEmpty), "cadence, row \(index)")
            if let speed = Double(line[3]) { #expect(abs((row.speed ?? -1) - speed) < 1e-9, "speed, row \(index)") }
            if let distance = Double(line[4]) { #expect(abs((row.distance ?? -1) - distance) < 1e-9, "distance, row \(index)") }
            lastLatitude = row.latitude ?? lastLatitude
            lastLongitude = row.longitude ?? lastLongitude
            #expect(lastLatitude.map(String.init) ?? "" == line[5], "latitude, row \(index)")
            #expect(lastLongitude.map(String.init) ?? "" == line[6], "longitude, row \(index)")
            if let altitude = Double(line[7]) { #expect(abs((row.altitude ?? -1000) - altitude) < 1e-9, "altitude, row \(index)") }
            #expect(row.temperature.map(String.init) ?? "" == line[8], "temperature, row \(index)")
        }
    }

    /// Compressed timestamp headers and the compressed speed and distance: time from the header's five bits, the
    /// distance accumulated from 12-bit steps of 1/16 m that roll over.
    @Test func compressedTimestampsSpeedAndDistanceMatchTheUpstreamCSV() throws {
        let rows = try Self.records("compressed-speed-distance.fit")
        let text = try String(contentsOf: Fixtures.url(Self.folder + "compressed-speed-distance-records.csv"), encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").map(String.init) }
        // The first record is empty (it only sets the time), as upstream says.
        #expect(rows.first?.timestamp == 17_217_864)
        let data = Array(rows.dropFirst())
        #expect(data.count == lines.count)
        var distance = 0.0
        var lastRaw: Int?
        for (index, (row, line)) in zip(data, lines).enumerated() {
            #expect(row.timestamp.map(Int.init) == Int(line[0]), "row \(index)")
            #expect(row.heartRate.map(Int.init) == Int(line[1]), "row \(index)")
            let packed = try #require(row.compressed)
            let rawSpeed = Int(packed[0]) | Int(packed[1] & 0x0F) << 8
            let rawDistance = Int(packed[1] >> 4) | Int(packed[2]) << 4
            if let lastRaw { distance += Double((rawDistance - lastRaw) & 0xFFF) / 16 }
            lastRaw = rawDistance
            #expect(abs(Double(rawSpeed) / 100 - Double(line[2])!) < 1e-9, "speed, row \(index)")
            #expect(abs(distance - Double(line[3])!) < 1e-9, "distance, row \(index)")
            #expect(row.cadence.map(String.init) ?? "null" == line[4], "cadence, row \(index)")
        }
    }

    /// What the upstream suite says of its broken files: each is refused in strict mode, with the reason.
    @Test func damagedFilesAreRefusedInStrictModeWithTheReason() throws {
        func reason(_ name: String) throws -> FITError.Reason? {
            do {
                _ = try FITReader.read(try Self.bytes(name))
                return nil
            } catch let error as FITError {
                #expect(error.description.hasPrefix("FIT, byte \(error.offset): "))
                return error.reason
            }
        }
        guard case .fileCRC? = try reason("activity-filecrc.fit") else { Issue.record("activity-filecrc.fit: no CRC error"); return }
        guard case .fileCRC? = try reason("activity-activity-filecrc.fit") else { Issue.record("chained file's CRC"); return }
        guard case .truncated? = try reason("activity-unexpected-eof.fit") else { Issue.record("unexpected EOF"); return }
        guard case .truncated? = try reason("activity-settings-nodata.fit") else { Issue.record("chained file without data"); return }
        guard case .notFIT? = try reason("activity-settings-corruptheader.fit") else { Issue.record("corrupt chained header"); return }
    }

    /// Lenient mode reads what precedes the damage and says what it left out.
    @Test func lenientReadsKeepWhatPrecedesTheDamage() throws {
        let cut = try FITReader.read(try Self.bytes("activity-unexpected-eof.fit"), lenient: true)
        #expect(!cut.warnings.isEmpty)
        #expect(cut.warnings.allSatisfy { $0.contains("FIT, byte") })
        let chained = try FITReader.read(try Self.bytes("activity-settings-corruptheader.fit"), lenient: true)
        // The activity before the damaged second header is whole.
        #expect(chained.document.tracks.first?.segments.flatMap(\.points).count == 14)
        #expect(chained.warnings.count == 1)
        let unfinished = try FITReader.read(try Self.bytes("nick.fit"), lenient: true)
        #expect(unfinished.hasPositions)
        #expect(!unfinished.warnings.isEmpty)
    }

    /// Several FIT files chained in one: every message of every file (upstream: 3,023 messages).
    @Test func chainedFilesAreReadWhole() throws {
        let bytes = try Self.bytes("sample_mulitple_header.fit")
        let report = try bytes.withUnsafeBytes { try FITDecoder.decode($0) { _ in } }
        #expect(report.files > 1)
        #expect(report.dataMessages == 3023)
    }

    /// Fields whose size is not a whole number of their type's elements are read as bytes, not misread, and the
    /// rest of the file is read (upstream: 11,293 messages).
    @Test func misalignedFieldsDoNotStopTheFile() throws {
        let bytes = try Self.bytes("coros-pace-2-cycling-misaligned-fields.fit")
        let report = try bytes.withUnsafeBytes { try FITDecoder.decode($0) { _ in } }
        #expect(report.dataMessages == 11293)
    }

    /// Upstream: the ELEMNT's session average speed is 5.86 m/s.
    @Test func theDevicesTotalsAreKept() throws {
        let activity = try FITReader.read(try Self.bytes("2019-02-17-062644-ELEMNT-297E-195-0.fit"))
        let totals = try #require(activity.totals)
        #expect(totals.averageSpeedMetersPerSecond == 5.86)
        #expect(activity.kind == .ride)
        #expect(activity.document.creator == "Wahoo Fitness")
    }

    /// An indoor trainer's file has no position: a track without a line, with the device's figures.
    @Test func aFileWithoutPositionsIsReadNotRefused() throws {
        let activity = try FITReader.read(try Self.bytes("sample-activity-indoor-trainer.fit"))
        #expect(!activity.hasPositions)
        let totals = try #require(activity.totals)
        #expect(abs((totals.timerSeconds ?? 0) - 2261.85) < 1e-6)
        #expect(activity.laps.count > 1)
    }

    /// The device's timer: a stop and a start open a new segment (the Edge 500's 12,691 s elapsed hold 10,641 s
    /// of timer); a file without the device's local time keeps its times in UTC.
    @Test func timerPausesSplitSegments() throws {
        let activity = try FITReader.read(try Self.bytes("garmin-edge-500-activity.fit"))
        let track = try #require(activity.document.tracks.first)
        #expect(track.segments.count > 1)
        let first = try #require(track.segments.first?.points.first?.time)
        // The SDK dump's first record: 06:00:22 PDT.
        #expect(first.secondsSince1970 == 1_316_955_622)
        #expect(first.offset == .utc)
    }

    /// The `activity` message's local time gives the times the offset the device showed (the Fenix 5 in
    /// California in June: −7 h), the same instants.
    @Test func timesKeepTheOffsetTheDeviceShowed() throws {
        let activity = try FITReader.read(try Self.bytes("garmin-fenix-5-bike.fit"))
        let first = try #require(activity.document.tracks.first?.segments.first?.points.first?.time)
        // The SDK dump's first record: 09:09:22 PDT.
        #expect(first.secondsSince1970 == 1_497_283_762)
        #expect(first.offset == .minutes(-420))
        #expect(first.rfc3339 == "2017-06-12T09:09:22-07:00")
    }

    // MARK: Against fitdecode

    struct Reference: Decodable {
        struct Session: Decodable {
            var distance: Double?
            var timer: Double?
            var elapsed: Double?
            var ascent: Double?
            var descent: Double?
        }
        struct Lap: Decodable {
            var distance: Double?
            var timer: Double?
        }
        var error: String?
        var sessions: [Session]?
        var laps: [Lap]?
        var positions: Int?
    }

    static let fitFiles = Fixtures.files(under: "fit").filter { $0.lowercased().hasSuffix(".fit") }

    /// fitdecode's reading of every fixture, once (one python process).
    static let references: Result<[String: Reference], any Error> = Result {
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "tools/fit_reference.py")
        let process = TestProcess()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + fitFiles.map { Fixtures.url($0).path }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "fitdecode is missing: run scripts/test.sh, which installs it"])
        }
        return try JSONDecoder().decode([String: Reference].self, from: data)
    }

    @Test(arguments: fitFiles)
    func sessionsLapsAndPositionsAgreeWithFitdecode(_ path: String) throws {
        let references = try Self.references.get()
        let name = String(path.split(separator: "/").last!)
        let reference = try #require(references[name])
        let bytes = try Fixtures.bytes(path)
        if let error = reference.error {
            // fitdecode refuses it: so does the strict reader; the lenient one reads what it can.
            #expect(throws: FITError.self, "fitdecode: \(error)") { try FITReader.read(bytes) }
            _ = try FITReader.read(bytes, lenient: true)
            return
        }
        let activity = try FITReader.read(bytes)
        let points = activity.document.tracks.flatMap { $0.segments.flatMap(\.points) }.count + activity.document.routes.flatMap(\.points).count
        #expect(points == reference.positions)
        let sessions = reference.sessions ?? []
        if sessions.isEmpty {
            #expect(activity.totals == nil)
        } else {
            let totals = try #require(activity.totals)
            func sum(_ values: [Double?]) -> Double? {
                let present = values.compactMap { $0 }
                return present.isEmpty ? nil : present.reduce(0, +)
            }
            for (ours, theirs, what) in [
                (totals.distanceMeters, sum(sessions.map(\.distance)), "distance"), (totals.timerSeconds, sum(sessions.map(\.timer)), "timer"),
                (totals.elapsedSeconds, sum(sessions.map(\.elapsed)), "elapsed"), (totals.ascentMeters, sum(sessions.map(\.ascent)), "ascent"),
            ] {
                #expect((ours == nil) == (theirs == nil), "\(what): \(String(describing: ours)) against \(String(describing: theirs))")
                if let ours, let theirs { #expect(abs(ours - theirs) < 1e-6, "\(what): \(ours) against \(theirs)") }
            }
        }
        let laps = reference.laps ?? []
        #expect(activity.laps.count == laps.count)
        for (ours, theirs) in zip(activity.laps, laps) {
            #expect(ours.distanceMeters.map { abs($0 - (theirs.distance ?? -1)) < 1e-6 } ?? (theirs.distance == nil))
            #expect(ours.timerSeconds.map { abs($0 - (theirs.timer ?? -1)) < 1e-6 } ?? (theirs.timer == nil))
        }
    }
}
