/// The two sliding windows best efforts are made of, each one pass over its series (two pointers that only move
/// forward): O(n) for n samples, whatever the distance or window.
public enum EffortWindows {
    /// The fastest stretch of `targetMeters`: its time and where it starts and ends.
    public struct Stretch: Sendable, Hashable {
        public var seconds: Double
        /// Start and end on the `meters` axis.
        public var startMeters: Double
        public var endMeters: Double
    }

    /// The least time over any stretch of exactly `targetMeters`, ending at a sample.
    ///
    /// `meters` and `seconds` are cumulative (distance and moving time at each sample, both never decreasing):
    /// between two samples both grow linearly, so a stretch ending at sample `j` starts inside the step whose
    /// distances bracket `meters[j] − targetMeters`, at the time interpolated there. Nil when the series covers
    /// less than `targetMeters`.
    ///
    ///     fastest(targetMeters: 1000, meters: [0, 500, 1500, 2000], seconds: [0, 100, 200, 300])?.seconds
    ///     // 100: from 500 m (100 s) to 1500 m (200 s)
    public static func fastest(targetMeters: Double, meters: [Double], seconds: [Double]) -> Stretch? {
        precondition(meters.count == seconds.count)
        guard targetMeters > 0, let last = meters.last, let first = meters.first, last - first >= targetMeters else { return nil }
        var best: Stretch?
        var start = 0
        for end in meters.indices {
            let from = meters[end] - targetMeters
            guard from >= meters[0] else { continue }
            // The last sample at or before `from`: the stretch starts in the step after it.
            while start + 1 < end && meters[start + 1] <= from { start += 1 }
            var startSeconds = seconds[start]
            if start + 1 <= end, meters[start + 1] > meters[start] {
                let fraction = (from - meters[start]) / (meters[start + 1] - meters[start])
                startSeconds += fraction * (seconds[start + 1] - seconds[start])
            }
            let time = seconds[end] - startSeconds
            if best == nil || time < best!.seconds {
                best = Stretch(seconds: time, startMeters: from, endMeters: meters[end])
            }
        }
        return best
    }

    /// The best mean of a value over `windowSeconds`, with where the window starts and ends (seconds).
    public struct Window: Sendable, Hashable {
        public var mean: Double
        public var startSeconds: Double
        public var endSeconds: Double
    }

    /// The highest mean of a sampled value over any window of `windowSeconds` ending at a sample, within one run.
    ///
    /// A sample's value holds over the interval that ends at it (from the previous sample's time): what a power
    /// meter reports is the power of the second just past. The first sample of a run thus holds over no time.
    /// `times` must increase within a run; `runStarts` are the indices where a run begins (a new segment, or a gap
    /// in the samples), windows never straddle two. Nil when no run lasts `windowSeconds`.
    ///
    ///     bestMean(windowSeconds: 2, times: [0, 1, 2, 3], values: [0, 100, 300, 200], runStarts: [0])
    ///     // 250: the window (1, 3] holds 300 and 200
    public static func bestMean(windowSeconds: Double, times: [Double], values: [Double], runStarts: [Int]) -> Window? {
        precondition(times.count == values.count)
        guard windowSeconds > 0, !times.isEmpty else { return nil }
        // Integral of the value up to each sample, restarting at every run.
        var integral = [Double](repeating: 0, count: times.count)
        var best: Window?
        let boundaries = (runStarts.filter { $0 > 0 && $0 < times.count } + [times.count])
        var runStart = 0
        for runEnd in boundaries where runEnd > runStart {
            var start = runStart
            for index in runStart..<runEnd {
                if index > runStart {
                    integral[index] = integral[index - 1] + values[index] * (times[index] - times[index - 1])
                }
                let from = times[index] - windowSeconds
                guard from >= times[runStart] else { continue }
                while start + 1 < index && times[start + 1] <= from { start += 1 }
                // The integral at `from`: the value of the sample after `start` holds from `times[start]`.
                let integralAtFrom = integral[start] + values[start + 1] * (from - times[start])
                let mean = (integral[index] - integralAtFrom) / windowSeconds
                if best == nil || mean > best!.mean {
                    best = Window(mean: mean, startSeconds: from, endSeconds: times[index])
                }
            }
            runStart = runEnd
        }
        return best
    }
}
