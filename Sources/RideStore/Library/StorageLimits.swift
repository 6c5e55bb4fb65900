/// What one user may store through the server: points per track and points in all, so that a small upload that
/// inflates to millions of points (a 1 MB gzip became 13.5 million) cannot take the server's memory or disk.
/// Refused with `RideStoreError.limitExceeded`, nothing stored. The command line's own imports have no limits.
public struct StorageLimits: Sendable, Hashable {
    /// Points in one track (a `trk`, or a whole file imported as one track). Two million is 23 days of 1 Hz
    /// recording: no ride, run or walk comes near it.
    public var maximumTrackPoints: Int?
    /// Points a user keeps in all their tracks, deleted ones until they are purged. A hundred million is about
    /// three years of riding every day for hours at 1 Hz (30 million a year, the overview's scale).
    public var maximumUserPoints: Int?

    public static let defaultMaximumTrackPoints = 2_000_000
    public static let defaultMaximumUserPoints = 100_000_000

    /// The server's defaults.
    public static let server = StorageLimits(maximumTrackPoints: defaultMaximumTrackPoints, maximumUserPoints: defaultMaximumUserPoints)
    /// None (the command line, the library's own tests).
    public static let none = StorageLimits(maximumTrackPoints: nil, maximumUserPoints: nil)

    public init(maximumTrackPoints: Int?, maximumUserPoints: Int?) {
        self.maximumTrackPoints = maximumTrackPoints
        self.maximumUserPoints = maximumUserPoints
    }
}
