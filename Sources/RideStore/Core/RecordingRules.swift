import Foundation
import RideKit

/// The rules of a recording that both stores follow.
package enum RecordingRules {
    /// A client's id for a recording: 1 to 64 of `A–Z a–z 0–9 - _` (a UUID fits), nothing a log or a URL minds.
    package static func validate(clientID: String) throws {
        let allowed = clientID.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard allowed, (1...64).contains(clientID.utf8.count) else {
            throw RideStoreError.invalid(field: "clientId", reason: "must be 1 to 64 letters, digits, '-' or '_' (a UUID)")
        }
    }

    /// A new recording's start: the client's when it gave one in the past, else now (a start in the future is now).
    package static func startedAt(requested: Date?, now: Date) -> Date { min(requested ?? now, now) }

    /// Refuses a batch with a fix whose position is not a coordinate, or with a value that is not finite (NaN
    /// would be stored as NULL): checked whole before anything is written.
    package static func validate(_ fixes: [RecordedFix]) throws {
        for fix in fixes {
            let point = fix.point
            guard point.coordinate.isValid else {
                throw RideStoreError.invalid(field: "fix \(fix.sequence)", reason: "position \(point.latitude), \(point.longitude) is not a valid coordinate")
            }
            for value in [point.elevation, point.speedMetersPerSecond, point.courseDegrees] {
                if let value, !value.isFinite { throw RideStoreError.invalid(field: "fix \(fix.sequence)", reason: "holds a value that is not a finite number") }
            }
        }
    }

    /// What a batch adds after the last client sequence stored: its new fixes in sequence order (a batch sent
    /// twice adds none), and the last sequence then kept, raised to `acknowledgedThrough` (fixes taken while
    /// paused are acknowledged, not stored).
    package static func fresh(
        _ fixes: [RecordedFix], after stored: Int64?, acknowledgedThrough: Int64?
    ) -> (fixes: [RecordedFix], lastSequence: Int64?) {
        var fresh: [RecordedFix] = []
        var last = stored
        for fix in fixes.sorted(by: { $0.sequence < $1.sequence }) where last.map({ fix.sequence > $0 }) ?? true {
            fresh.append(fix)
            last = fix.sequence
        }
        if let acknowledged = acknowledgedThrough, last.map({ acknowledged > $0 }) ?? true { last = acknowledged }
        return (fresh, last)
    }
}
