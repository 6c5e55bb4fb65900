import Foundation
import RideKit

/// The laps a rider marks while recording (the Record tab's Lap button), as both stores keep them: the times of the
/// marks, in milliseconds since 1970, sorted and distinct, as a JSON array in the track's `lapMarks` column. A mark
/// is identified by its time (that of the latest fix when the button was pressed), so a mark sent twice (a retry,
/// the outbox after a reconnection) is kept once.
package enum LapRules {
    /// More laps than any ride has (a lap a minute for 16 hours).
    package static let maximumLapMarks = 1000
    /// Marks from 2000 to 2200: a clock outside them is wrong.
    package static let validMilliseconds: ClosedRange<Int64> = 946_684_800_000...7_258_118_400_000

    /// The stored marks with `time` added (unchanged when it is there already).
    package static func adding(_ time: Int64, to stored: String?) throws -> (text: String, marks: [Int64]) {
        guard validMilliseconds.contains(time) else {
            throw RideStoreError.invalid(field: "time", reason: "a lap's time must be between 2000 and 2200")
        }
        var marks = decode(stored)
        if !marks.contains(time) {
            guard marks.count < maximumLapMarks else {
                throw RideStoreError.limitExceeded("a ride has at most \(maximumLapMarks) laps")
            }
            marks.append(time)
            marks.sort()
        }
        return (encode(marks), marks)
    }

    /// A whole set of marks (an import), each checked as `adding` checks one; nil (NULL) for none.
    package static func checked(_ marks: [Int64]) throws -> String? {
        var text: String?
        for mark in Set(marks).sorted() { text = try adding(mark, to: text).text }
        return text
    }

    /// The marks of a stored column; none for NULL or text that is not an array of integers.
    package static func decode(_ text: String?) -> [Int64] {
        guard let text, let data = text.data(using: .utf8), let marks = try? JSONDecoder().decode([Int64].self, from: data) else { return [] }
        return marks
    }

    package static func encode(_ marks: [Int64]) -> String {
        "[" + marks.map(String.init).joined(separator: ",") + "]"
    }
}
