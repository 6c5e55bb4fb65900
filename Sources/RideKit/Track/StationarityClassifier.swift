/// Tells fixes taken standing still from fixes taken on the move, whatever the receiver's scatter, by looking
/// at the fixes on both sides of each one.
///
/// A receiver with a poor view of the sky scatters its fixes by several metres, independently from one second
/// to the next or as a slow wander; fix to fix, that looks like riding. What separates the two is whether the
/// fixes *go anywhere*: for a fix with `n` fixes on each side, compare the mean position of the `n + 1` before
/// (it included) with that of the `n + 1` after. Moving, the two means lie `n` steps apart, far more than the
/// fixes spread around their own mean (≈ 3.4× on a straight line, whatever the speed); standing still, the
/// means differ by about the scatter divided by √n, well under the spread (≈ 1/√n of it). The fix is moving
/// when, on some scale, the means lie over `ratio` spreads apart *and* at least `minimumSpeedMetersPerSecond`
/// apart in time (a slow wander, which looks like a meandering path, moves its mean at a few cm/s). Two scales:
/// - 32 fixes a side, where the test is sharp (noise ratio ≈ 0.18, so one fix in millions is taken for moving)
///   and a walker at 1 m/s with 6 m of independent scatter still reads ≈ 2.5;
/// - 4 fixes a side, for tight bends, where 32 fixes take a rider round a 250 m velodrome and the two means
///   fall close together.
///
/// The answer for a fix is known `longHalf` fixes later, so fixes leave the classifier that much delayed.
/// Without times a fix is never called stationary (there is no speed to compare with).
///
/// Cost: a few dozen flops a fix, over running sums (positions relative to a nearby origin); memory: a ring
/// of `capacity` fixes.
struct StationarityClassifier {
    /// Fixes on each side on the long scale.
    static let longHalf = 32
    /// Fixes on each side on the short scale.
    static let shortHalf = 4
    /// Means apart by more than this many spreads: moving, on the long scale. Standing still with independent
    /// scatter, the ratio is Rayleigh-distributed with scale 1/√33 (≈ 0.17): over 1.5 in one case in 10¹⁷.
    static let longRatio = 1.5
    /// The same on the short scale, where noise reads higher (scale 1/√5 ≈ 0.45: over 2.2 once in 10⁵).
    static let shortRatio = 2.2
    /// The means must also move at least this fast: a wander of the fixes (a random walk) has the shape of a
    /// meandering path, but moves its mean at a few cm/s; a walker moves at ≥ 0.8 m/s.
    static let minimumSpeedMetersPerSecond = 0.5
    /// Nine successive fixes that spread wider than this (root mean square, metres) are not a stop, however they lie: over
    /// three times the spread of the worst scatter a stop shows (6 m per axis, 8.5 m in the plane). It keeps
    /// sparse tracks and planned routes, and tight bends, out of the test's reach.
    static let maximumStopSpreadMeters = 25.0
    /// A scale says nothing unless each side holds at least this many fixes (3 on the short scale); with fewer
    /// on every scale, as in a track of a handful of fixes, the fix counts as moving.
    static func minimumFixes(half: Int) -> Double { Double(half / 4 + 2) }

    /// Re-centre the running sums when the newest fix is this far from their origin (the tangent plane is
    /// good to 0.03 % within 2 km) or after this many fixes (so that sums of squares keep their precision).
    static let originReachMeters = 2_000.0
    static let originMaxFixes = 4_096

    static let capacity = 2 * longHalf + 2

    private struct Entry {
        var point: StatsPoint
        var east = 0.0
        var north = 0.0
        /// Running sums from `baseIndex` to this entry, inclusive.
        var sumEast = 0.0
        var sumNorth = 0.0
        var sumSquares = 0.0
        var sumTime = 0.0
        var untimed = 0
    }

    private var ring: [Entry]
    private var origin = StatsPoint(latitude: 0, longitude: 0, elevationMeters: nil, time: nil)
    private var timeOrigin = 0.0
    /// Fixes taken in the segment, and fixes handed on.
    private var received = 0
    private var emitted = 0
    /// The first index the running sums count from.
    private var baseIndex = 0

    init() {
        ring = Array(repeating: Entry(point: StatsPoint(latitude: 0, longitude: 0, elevationMeters: nil, time: nil)), count: Self.capacity)
    }

    /// Starts a new segment: no window spans a pause. Fixes still held must have been drained.
    mutating func beginSegment() {
        received = 0
        emitted = 0
        baseIndex = 0
    }

    /// Takes the next fix; returns the fix `longHalf` places back, classified, once its window is complete.
    mutating func push(_ point: StatsPoint) -> StatsPoint? {
        if received == 0 {
            origin = point
            timeOrigin = point.time ?? 0
        } else {
            let offset = origin.offset(of: point)
            let reach = Self.originReachMeters
            if offset.east * offset.east + offset.north * offset.north > reach * reach || received - baseIndex >= Self.originMaxFixes {
                rebase(origin: point)
            }
        }
        store(point, at: received)
        received += 1
        guard received > Self.longHalf else { return nil }
        return emit()
    }

    /// At the end of a segment: the fixes still held, one per call, then nil.
    mutating func drain() -> StatsPoint? {
        guard emitted < received else { return nil }
        return emit()
    }

    private mutating func emit() -> StatsPoint {
        let index = emitted
        emitted += 1
        var point = ring[index % Self.capacity].point
        point.isStationary = point.time != nil && isStationary(index)
        return point
    }

    /// No scale sees movement, and one at least could have. The short scale first: on the move it usually
    /// settles the question alone, which keeps the common case to one test.
    private func isStationary(_ index: Int) -> Bool {
        let short = isMoving(index, half: Self.shortHalf, ratio: Self.shortRatio)
        if short == true { return false }
        var long = isMoving(index, half: Self.longHalf, ratio: Self.longRatio)
        // At the start of a stop the long window still reaches back into the ride: the fixes from this one on
        // tell alone (their first half against their second), so that the stop starts where it starts.
        if long == true {
            let middle = min(received - 1, index + Self.longHalf / 2), end = min(received - 1, index + Self.longHalf)
            let ahead = isMoving(
                before: index...middle, after: middle...end, ratio: Self.longRatio, minimumFixes: Self.minimumFixes(half: Self.longHalf))
            if ahead == false { long = false }
        }
        return long != true && (long != nil || short != nil)
    }

    private mutating func store(_ point: StatsPoint, at index: Int) {
        let offset = origin.offset(of: point)
        var entry = Entry(point: point, east: offset.east, north: offset.north)
        let previous: Entry? = index > baseIndex ? ring[(index - 1) % Self.capacity] : nil
        let time = point.time.map { $0 - timeOrigin } ?? 0
        entry.sumEast = (previous?.sumEast ?? 0) + offset.east
        entry.sumNorth = (previous?.sumNorth ?? 0) + offset.north
        entry.sumSquares = (previous?.sumSquares ?? 0) + offset.east * offset.east + offset.north * offset.north
        entry.sumTime = (previous?.sumTime ?? 0) + time
        entry.untimed = (previous?.untimed ?? 0) + (point.time == nil ? 1 : 0)
        ring[index % Self.capacity] = entry
    }

    /// Recomputes the held fixes' offsets and sums from a new origin (the newest fix).
    private mutating func rebase(origin newOrigin: StatsPoint) {
        origin = newOrigin
        let first = max(0, emitted - Self.longHalf, received - Self.capacity + 1)
        baseIndex = first
        for index in first..<received { store(ring[index % Self.capacity].point, at: index) }
    }

    /// Sums over fixes `first…last` (inclusive): count, mean east/north, sum of squares, mean time, untimed.
    private func sums(_ first: Int, _ last: Int) -> (count: Double, east: Double, north: Double, squares: Double, time: Double, untimed: Int) {
        let upper = ring[last % Self.capacity]
        var east = upper.sumEast, north = upper.sumNorth, squares = upper.sumSquares, time = upper.sumTime
        var untimed = upper.untimed
        if first > baseIndex {
            let lower = ring[(first - 1) % Self.capacity]
            east -= lower.sumEast
            north -= lower.sumNorth
            squares -= lower.sumSquares
            time -= lower.sumTime
            untimed -= lower.untimed
        }
        return (Double(last - first + 1), east, north, squares, time, untimed)
    }

    /// Whether the fixes around `index` go somewhere, on the scale of `half` fixes a side; nil when a side has
    /// too few fixes to tell (the edges of a segment, a short track).
    private func isMoving(_ index: Int, half: Int, ratio: Double) -> Bool? {
        let moving = isMoving(
            before: max(baseIndex, index - half)...index, after: index...min(received - 1, index + half), ratio: ratio,
            minimumFixes: Self.minimumFixes(half: half))
        // On the short scale only: the long one straddles the start and end of every stop.
        guard half == Self.shortHalf, moving == false else { return moving }
        let window = sums(max(baseIndex, index - half), min(received - 1, index + half))
        let meanEast = window.east / window.count, meanNorth = window.north / window.count
        let spreadSquared = window.squares / window.count - meanEast * meanEast - meanNorth * meanNorth
        return spreadSquared > Self.maximumStopSpreadMeters * Self.maximumStopSpreadMeters
    }

    /// Whether the fixes `after` lie significantly and fast enough away from the fixes `before`.
    private func isMoving(before beforeRange: ClosedRange<Int>, after afterRange: ClosedRange<Int>, ratio: Double, minimumFixes fewest: Double)
        -> Bool?
    {
        let before = sums(beforeRange.lowerBound, beforeRange.upperBound)
        let after = sums(afterRange.lowerBound, afterRange.upperBound)
        guard before.count >= fewest && after.count >= fewest else { return nil }
        // Without times there is no speed: such a fix is never called stationary; nor when no time passes
        // (placeholder times, all the same, as in gpxpy's Mojstrovka.gpx).
        if before.untimed > 0 || after.untimed > 0 { return true }
        let seconds = after.time / after.count - before.time / before.count
        guard seconds > 0 else { return true }
        let meanEastBefore = before.east / before.count, meanNorthBefore = before.north / before.count
        let meanEastAfter = after.east / after.count, meanNorthAfter = after.north / after.count
        let de = meanEastAfter - meanEastBefore, dn = meanNorthAfter - meanNorthBefore
        let apartSquared = de * de + dn * dn
        let spreadBefore = before.squares - before.count * (meanEastBefore * meanEastBefore + meanNorthBefore * meanNorthBefore)
        let spreadAfter = after.squares - after.count * (meanEastAfter * meanEastAfter + meanNorthAfter * meanNorthAfter)
        let spreadSquared = max(0, spreadBefore + spreadAfter) / (before.count + after.count)
        guard apartSquared > ratio * ratio * spreadSquared else { return false }
        let speed = Self.minimumSpeedMetersPerSecond
        return apartSquared >= speed * speed * seconds * seconds
    }
}
