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
}
