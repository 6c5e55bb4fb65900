import Foundation
import RideKit

/// Times as both stores keep them: integer milliseconds since 1970, so that what a call returns is what a later
/// read gives back.
package enum StoreClock {
    /// Now, to the millisecond.
    package static func now() -> Date { rounded(Date()) }

    /// `date` to the millisecond, as a store gives it back.
    package static func rounded(_ date: Date) -> Date { Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000) }

    /// A date as stored: milliseconds since 1970.
    package static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
