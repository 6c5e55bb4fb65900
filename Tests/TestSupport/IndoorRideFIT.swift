/// A FIT activity of an indoor trainer ride, written byte by byte for tests (the test's own writer and CRC, not the
/// reader's): records with the device's cumulative distance, power and heart rate and no position, timer events
/// around a pause, a session with the device's totals. Every figure is known by construction.
///
/// The ride, one record a second (a record's values are those of the second that ends at it):
/// - first stretch, t = 0…1199 s: 5 m/s, but 10 m/s over the seconds (300, 500] (2 km in 200 s); 150 W, but
///   300 W over (600, 900] (5 minutes); heart rate 120;
/// - the timer stopped at 1199 s and started again at 1800 s (a 10-minute pause, no records, no distance);
/// - second stretch, t = 1800…2399 s: 5 m/s, 150 W, heart rate 170 over (1900, 2200] (5 minutes), else 120.
///
/// So: fastest 400 m 40 s, 1 km 100 s, 1 mile 160.9344 s, 5 km 800 s (the fast 2 km and 3 km at 5 m/s); no 10 km
/// (9,990 m in all); best power 300 W over 5 s, 1 min and 5 min, none over 20 min (no stretch lasts 20 minutes: a
/// window never spans the pause); best heart rate 170 over 5 s to 5 min; moving time 1,798 s.
public enum IndoorRideFIT {
    public static let startSeconds: UInt32 = 1_100_000_000  // since 1989-12-31: 2024-11-08
    public static let totalMeters = 9_990.0
    public static let timerSeconds = 1_798.0
    public static let elapsedSeconds = 2_399.0

    public static func bytes() -> [UInt8] {
        var records: [UInt8] = []
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        // Definitions: 0 file_id (type, manufacturer), 1 event (timestamp, event, event_type), 2 record (timestamp,
        // distance, power, heart_rate), 3 session (timestamp, start_time, sport, elapsed, timer, distance).
        records += [0x40, 0, 0] + le(UInt16(0)) + [2, 0, 1, 0x00, 1, 2, 0x84]
        records += [0x41, 0, 0] + le(UInt16(21)) + [3, 253, 4, 0x86, 0, 1, 0x00, 1, 1, 0x00]
        records += [0x42, 0, 0] + le(UInt16(20)) + [4, 253, 4, 0x86, 5, 4, 0x86, 7, 2, 0x84, 3, 1, 0x02]
        records += [0x43, 0, 0] + le(UInt16(18)) + [6, 253, 4, 0x86, 2, 4, 0x86, 5, 1, 0x00, 7, 4, 0x86, 8, 4, 0x86, 9, 4, 0x86]
        records += [0x00, 4] + le(UInt16(255))
        var distance = 0.0
        func record(_ t: UInt32, speed: Double, power: UInt16, heartRate: UInt8) {
            if t > 0 { distance += speed }
            records += [0x02] + le(startSeconds + t) + le(UInt32((distance * 100).rounded())) + le(power) + [heartRate]
        }
        records += [0x01] + le(startSeconds) + [0, 0]  // timer start
        for t in UInt32(0)...1199 {
            record(t, speed: (301...500).contains(t) ? 10 : 5, power: (601...900).contains(t) ? 300 : 150, heartRate: 120)
        }
        records += [0x01] + le(startSeconds + 1199) + [0, 4]  // stop_all
        records += [0x01] + le(startSeconds + 1800) + [0, 0]  // start
        for t in UInt32(1800)...2399 {
            record(t, speed: t == 1800 ? 0 : 5, power: 150, heartRate: (1901...2200).contains(t) ? 170 : 120)
        }
        records += [0x01] + le(startSeconds + 2399) + [0, 4]
        records += [0x03] + le(startSeconds + 2399) + le(startSeconds) + [2] + le(UInt32(elapsedSeconds * 1000))
            + le(UInt32(timerSeconds * 1000)) + le(UInt32(totalMeters * 100))
        return file(records)
    }

    /// A FIT file around `records`: a 14-byte header with its CRC, and the file's CRC (CRC-16/ARC, the FIT SDK's).
    public static func file(_ records: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [14, 0x20, 0x54, 0x08]
        header += withUnsafeBytes(of: UInt32(records.count).littleEndian, Array.init)
        header += Array(".FIT".utf8)
        let headerCRC = crc(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        let body = header + records
        let fileCRC = crc(body)
        return body + [UInt8(fileCRC & 0xFF), UInt8(fileCRC >> 8)]
    }

    /// CRC-16/ARC (polynomial 0xA001 reflected), bit by bit.
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }
}
