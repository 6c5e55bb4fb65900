import Foundation

/// Finds the turns of a route from its geometry alone (no road network): the cue sheet.
///
/// A turn is a change of heading that *holds*. Headings are measured over distances along the route, never
/// over point counts, so a planner's export with a point only at each corner, a routing engine's line with a
/// point every 10–20 m and a 1 Hz recording with GPS noise and cut corners give the same cues:
///
/// 1. The line is resampled every 2.5 m of arc length. A noisy line (a recording: its samples stray more
///    than 0.5 m, at the median, from the midpoint of their neighbours 10 m away) loses its spikes (lone
///    fixes far from both neighbours) and is averaged over a window of three times its noise (8–20 m); the
///    cues found on it are put back at the same distance along the line as given.
/// 2. At every sample, the *detection angle* is the change from the heading of the 20 m behind it to the
///    heading of the 20 m ahead of it. A sharp corner makes a peak of its full angle; a road that bends
///    gently makes a low plateau (a bend of κ degrees per metre gives 20·κ: 90° over 200 m gives 9°), so it
///    never becomes a cue. Runs of one sign above 20° are candidates; a run is split where it dips under half
///    its peaks for 20 m or more, so two corners 40 m apart (a jog, or two rights around a small block) stay
///    two turns.
/// 3. Each candidate's corner is placed where the line is farthest from the ends of its ±20 m window (the
///    point that maximises the sum of the distances to both ends: the vertex of a sharp corner, the middle
///    of a rounded one, the far end of a U-turn), snapped to an original vertex within one sample.
/// 4. The angle is measured there between the heading of the line from 45 m to 8 m before the corner and
///    that from 8 m to 45 m after it (each the direction of the straight line fitted to its points, and
///    shortened to stay clear of a neighbouring corner). Skipping the 8 m (or the averaging window) next to
///    the corner takes a rider's rounded corner out of the measure; the 37 m after it is the "holds" test: the new heading must last
///    that long to count in full. Changes under 30° are not cues.
///
/// Everything is along the line, so a route that crosses itself or rides the same street twice is no
/// different; bearings and distances are spherical/ellipsoidal and antimeridian-safe.
///
/// Compared with OsmAnd's `addMissingTurnsToRoute` (heading from a point 70 m back to the heading of the
/// *next single segment*, which a dense noisy line breaks into many false turns) and routers such as BRouter
/// (angles from the road network's junctions, not available for a bare GPX track), this needs
/// nothing but the line and does not depend on its density. The figures against known corners are in
/// docs/navigation.md.
///
///     let cues = TurnDetector.cues(along: route)   // [Cue]: coordinate, distanceMeters, direction, severity, angle
///
/// Complexity: O(n + L/2.5 m) time and memory for n points and length L (the sample spacing grows for
/// routes over 2,500 km so that no route takes more than a million samples).
public enum TurnDetector {
    /// Distances and angles the detector works with; the defaults are the ones measured in docs/navigation.md.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Resampling step, metres.
        public var sampleSpacingMeters: Double = 2.5
        /// Length of the heading behind and ahead of a sample for finding candidates, metres.
        public var detectionArmMeters: Double = 20
        /// Smallest detection angle that makes a candidate, degrees.
        public var candidateDegrees: Double = 20
        /// Distance next to the corner left out when measuring its angle, metres.
        public var measureNearMeters: Double = 8
        /// Distance from the corner to the far end of the headings that measure its angle, metres.
        public var measureFarMeters: Double = 45
        /// A line noisier than this (metres, see `noiseMeters`) is smoothed before turns are looked for.
        public var smoothingNoiseMeters: Double = 0.5
        /// Smallest change of heading that is a cue, degrees.
        public var minimumDegrees: Double = TurnSeverity.minimumDegrees

        public init() {}
    }

    /// Most samples taken along one route; the spacing grows beyond it (memory stays bounded for any input).
    static let maximumSamples = 1_000_000

    /// The cues along `coordinates` in route order. Fewer than two distinct valid points give none.
    public static func cues(along coordinates: [Coordinate], configuration: Configuration = Configuration()) -> [Cue] {
        cues(along: RoutePolyline(coordinates), configuration: configuration)
    }

    static func cues(along line: RoutePolyline, configuration: Configuration) -> [Cue] {
        let length = line.lengthMeters
        guard line.segmentCount > 0, length > 2 * configuration.measureNearMeters else { return [] }
        let spacing = max(configuration.sampleSpacingMeters, length / Double(maximumSamples), 0.1)
        let samples = resample(line, spacingMeters: spacing)
        let noise = noiseMeters(samples, span: max(1, Int((10 / spacing).rounded())))
        guard noise > configuration.smoothingNoiseMeters else {
            return detect(along: line, samples: samples, spacing: spacing, configuration: configuration)
        }
        // A noisy line (a recording): drop the lone fixes that jump out and back, then average the noise away
        // over a window that grows with it, and leave out as much next to each corner when measuring it, since
        // the averaging rounds corners.
        var cleanKept: [Int] = []
        let clean = withoutSpikes(line, keptIndices: &cleanKept)
        guard clean.segmentCount > 0 else { return [] }
        let cleanSamples = clean.vertices.count == line.vertices.count ? samples : resample(clean, spacingMeters: spacing)
        let halfWidthMeters = min(max(3 * noise, 8), 20)
        let smoothed = smooth(cleanSamples, halfWidth: max(1, Int((halfWidthMeters / spacing).rounded())))
        var kept: [Int] = []
        let smoothLine = RoutePolyline(smoothed, keptIndices: &kept)
        guard smoothLine.segmentCount > 0 else { return [] }
        var measuring = configuration
        measuring.measureNearMeters = max(configuration.measureNearMeters, halfWidthMeters)
        let cues = detect(along: smoothLine, samples: resample(smoothLine, spacingMeters: spacing), spacing: spacing,
                          configuration: measuring)
        // Back to the route as given: smoothed sample k stands for the point k·spacing along the line without
        // spikes, whose vertices are vertices of the line as given.
        return cues.map { cue in
            let cleanAlong = interpolate(cue.distanceMeters, on: smoothLine, toIndexes: kept) * spacing
            let cleanSegment = clean.segmentIndex(atDistance: cleanAlong)
            let start = clean.cumulativeMeters[cleanSegment], end = clean.cumulativeMeters[cleanSegment + 1]
            let fraction = end > start ? min(1, max(0, (cleanAlong - start) / (end - start))) : 0
            let from = line.cumulativeMeters[cleanKept[cleanSegment]], to = line.cumulativeMeters[cleanKept[cleanSegment + 1]]
            var cue = cue
            cue.distanceMeters = min(from + fraction * (to - from), length)
            cue.coordinate = line.coordinate(atDistance: cue.distanceMeters)
            return cue
        }
    }

    /// The index in `indexes` (fractional) that the point `distanceMeters` along `line` stands for, when
    /// vertex i of the line stands for `indexes[i]`.
    static func interpolate(_ distanceMeters: Double, on line: RoutePolyline, toIndexes indexes: [Int]) -> Double {
        let segment = line.segmentIndex(atDistance: distanceMeters)
        let start = line.cumulativeMeters[segment], end = line.cumulativeMeters[segment + 1]
        let fraction = end > start ? min(1, max(0, (distanceMeters - start) / (end - start))) : 0
        return Double(indexes[segment]) + fraction * Double(indexes[segment + 1] - indexes[segment])
    }

    /// The line without its spikes: lone vertices that make a detour of 30 m or more, three times the direct
    /// hop between their neighbours — a fix thrown out by multipath and back at the next. Only for recordings: a
    /// planner's line can go out to a single point and back on purpose (a spur to a viewpoint), and that stays.
    /// `keptIndices` gets the index in `line.vertices` of each vertex kept.
    static func withoutSpikes(_ line: RoutePolyline, keptIndices: inout [Int]) -> RoutePolyline {
        let vertices = line.vertices
        var kept: [Int] = vertices.isEmpty ? [] : [0]
        for index in vertices.indices.dropFirst().dropLast() {
            let previous = vertices[kept[kept.count - 1]], vertex = vertices[index], next = vertices[index + 1]
            let out = previous.distanceMeters(to: vertex), back = vertex.distanceMeters(to: next)
            let across = previous.distanceMeters(to: next)
            // A detour of 30 m or more, three times the direct hop: a real hairpin at speed is 15 m out, 15 back
            // and 10 across at most; standing still is a few metres each way.
            if out + back >= max(30, 3 * across) { continue }
            kept.append(index)
        }
        if vertices.count > 1 { kept.append(vertices.count - 1) }
        var cleanKept: [Int] = []
        let clean = RoutePolyline(kept.map { vertices[$0] }, keptIndices: &cleanKept)
        keptIndices = cleanKept.map { kept[$0] }
        return clean
    }

    /// Steps 2–4 on a line and its samples.
    static func detect(along line: RoutePolyline, samples: [Coordinate], spacing: Double, configuration: Configuration) -> [Cue] {
        let arm = max(1, Int((configuration.detectionArmMeters / spacing).rounded()))
        guard samples.count > 2 * arm else { return [] }

        let detection = detectionAngles(samples, arm: arm)
        let peaks = candidatePeaks(detection, thresholdDegrees: configuration.candidateDegrees,
                                   separation: arm, spacingMeters: spacing)
        let corners = refine(peaks, samples: samples, arm: arm, spacing: spacing, line: line)

        var cues: [Cue] = []
        for (index, corner) in corners.enumerated() {
            let previous = index > 0 ? corners[index - 1] : nil
            let next = index + 1 < corners.count ? corners[index + 1] : nil
            guard let cue = measure(at: corner, previous: previous, next: next, line: line, configuration: configuration)
            else { continue }
            // Two corners that refine to nearly one place are one turn: keep the larger.
            if let last = cues.last, cue.distanceMeters - last.distanceMeters < configuration.measureNearMeters {
                if abs(cue.angleDegrees) > abs(last.angleDegrees) { cues[cues.count - 1] = cue }
                continue
            }
            cues.append(cue)
        }
        return cues
    }

    /// How noisy the line is, metres: the median distance of a sample from the midpoint of the samples
    /// `span` before and after it. A drawn line (straight between its points) gives 0, whatever its corners,
    /// since they are a small part of its samples; a bend of radius R gives about span²/(2R); a recording
    /// gives the scale of its GPS jitter.
    static func noiseMeters(_ samples: [Coordinate], span: Int) -> Double {
        guard samples.count > 2 * span else { return 0 }
        // Every sample up to 100,000 of them, evenly spread beyond: the median does not need more.
        let stride = max(1, (samples.count - 2 * span) / 100_000)
        var deviations: [Double] = []
        deviations.reserveCapacity((samples.count - 2 * span) / stride + 1)
        for k in Swift.stride(from: span, to: samples.count - span, by: stride) {
            let middle = RoutePolyline.interpolate(samples[k - span], samples[k + span], fraction: 0.5)
            deviations.append(samples[k].distanceMeters(to: middle))
        }
        deviations.sort()
        return deviations[deviations.count / 2]
    }

    /// Each sample replaced by the mean of the samples within `halfWidth` of it (fewer at the ends), taken as
    /// offsets from it so that the antimeridian does not matter.
    static func smooth(_ samples: [Coordinate], halfWidth: Int) -> [Coordinate] {
        var smoothed: [Coordinate] = []
        smoothed.reserveCapacity(samples.count)
        for k in samples.indices {
            let low = max(0, k - halfWidth), high = min(samples.count - 1, k + halfWidth)
            let center = samples[k]
            var north = 0.0, east = 0.0
            for j in low...high {
                north += samples[j].latitude - center.latitude
                east += EllipsoidalDistance.longitudeDifferenceRadians(from: center.longitude, to: samples[j].longitude)
            }
            let count = Double(high - low + 1)
            smoothed.append(Coordinate(
                latitude: center.latitude + north / count,
                longitude: RoutePolyline.wrapLongitude(center.longitude + east / count * 180 / .pi)
            ))
        }
        return smoothed
    }

    /// Points every `spacingMeters` along the line from its start (the last one at or before its end).
    static func resample(_ line: RoutePolyline, spacingMeters: Double) -> [Coordinate] {
        let count = Int(line.lengthMeters / spacingMeters) + 1
        var samples: [Coordinate] = []
        samples.reserveCapacity(count)
        var segment = 0
        for k in 0..<count {
            let distance = Double(k) * spacingMeters
            while segment < line.segmentCount - 1 && line.cumulativeMeters[segment + 1] <= distance { segment += 1 }
            samples.append(line.coordinate(atDistance: distance, inSegment: segment))
        }
        return samples
    }

    /// For every sample, the signed change from the heading of the `arm` samples behind to that of the `arm`
    /// samples ahead; 0 where either side runs off the line.
    static func detectionAngles(_ samples: [Coordinate], arm: Int) -> [Double] {
        var angles = [Double](repeating: 0, count: samples.count)
        guard samples.count > 2 * arm else { return angles }
        for k in arm..<(samples.count - arm) {
            let before = samples[k - arm].initialBearingDegrees(to: samples[k])
            let after = samples[k].initialBearingDegrees(to: samples[k + arm])
            angles[k] = signedTurnDegrees(from: before, to: after)
        }
        return angles
    }

    /// Sample indexes of the candidate peaks: in each run of one sign at or above the threshold, its local
    /// maxima, kept apart only when `separation` samples or more apart with a dip under half the smaller
    /// peak between them.
    static func candidatePeaks(_ angles: [Double], thresholdDegrees: Double, separation: Int, spacingMeters: Double) -> [Int] {
        var peaks: [Int] = []
        var k = 0
        while k < angles.count {
            guard abs(angles[k]) >= thresholdDegrees else { k += 1; continue }
            let sign = angles[k] > 0
            var end = k
            while end + 1 < angles.count && abs(angles[end + 1]) >= thresholdDegrees && (angles[end + 1] > 0) == sign { end += 1 }
            var kept: [Int] = []
            var dip = Double.infinity  // the smallest value since the last peak kept: linear however long the run
            for j in k...end {
                let value = abs(angles[j])
                dip = min(dip, value)
                let left = j > k ? abs(angles[j - 1]) : -1, right = j < end ? abs(angles[j + 1]) : -1
                guard value >= left && value > right || (j == end && value >= left) else { continue }
                guard let last = kept.last else {
                    kept.append(j)
                    dip = value
                    continue
                }
                let lastValue = abs(angles[last])
                if j - last >= separation && dip < 0.5 * min(lastValue, value) {
                    kept.append(j)
                    dip = value
                } else if value > lastValue {
                    kept[kept.count - 1] = j
                    dip = value
                }
            }
            peaks.append(contentsOf: kept)
            k = end + 1
        }
        return peaks
    }

    /// A corner found: its distance along the line and its point.
    struct Corner {
        var distanceMeters: Double
        var coordinate: Coordinate
    }

    /// Places each peak's corner at the sample of its window farthest from the window's ends (see step 3).
    static func refine(_ peaks: [Int], samples: [Coordinate], arm: Int, spacing: Double, line: RoutePolyline) -> [Corner] {
        var corners: [Corner] = []
        corners.reserveCapacity(peaks.count)
        for (index, peak) in peaks.enumerated() {
            var low = max(0, peak - arm), high = min(samples.count - 1, peak + arm)
            if index > 0 { low = max(low, (peaks[index - 1] + peak + 1) / 2) }
            if index + 1 < peaks.count { high = min(high, (peak + peaks[index + 1]) / 2) }
            let a = samples[low], b = samples[high]
            var best = peak, bestSum = -Double.infinity
            for j in low...high {
                let sum = samples[j].distanceMeters(to: a) + samples[j].distanceMeters(to: b)
                if sum > bestSum { bestSum = sum; best = j }
            }
            var distance = Double(best) * spacing
            var coordinate = samples[best]
            // A vertex of the original line within one sample is the corner the author drew: keep it exactly.
            let segment = line.segmentIndex(atDistance: distance)
            for vertex in [segment, segment + 1] where vertex < line.vertices.count {
                if abs(line.cumulativeMeters[vertex] - distance) <= spacing {
                    distance = line.cumulativeMeters[vertex]
                    coordinate = line.vertices[vertex]
                    break
                }
            }
            corners.append(Corner(distanceMeters: distance, coordinate: coordinate))
        }
        return corners
    }

    /// The cue at a corner, measured between the headings before and after it (step 4), or nil under the minimum.
    static func measure(at corner: Corner, previous: Corner?, next: Corner?, line: RoutePolyline,
                        configuration: Configuration) -> Cue? {
        let near = configuration.measureNearMeters, far = configuration.measureFarMeters
        let s = corner.distanceMeters
        let gapBefore = previous.map { s - $0.distanceMeters } ?? .infinity
        let gapAfter = next.map { $0.distanceMeters - s } ?? .infinity
        // Stop short of a neighbouring corner (its own rounded part included), never beyond the line's ends.
        let farBefore = min(far, s, max(gapBefore - near, gapBefore / 2))
        let farAfter = min(far, line.lengthMeters - s, max(gapAfter - near, gapAfter / 2))
        guard farBefore >= 2, farAfter >= 2 else { return nil }
        let nearBefore = min(near, farBefore / 3), nearAfter = min(near, farAfter / 3)
        let origin = corner.coordinate
        let before = armBearingDegrees(line, from: s - farBefore, to: s - nearBefore, origin: origin)
        let after = armBearingDegrees(line, from: s + nearAfter, to: s + farAfter, origin: origin)
        let angle = signedTurnDegrees(from: before, to: after)
        guard abs(angle) >= configuration.minimumDegrees, let severity = TurnSeverity(angleDegrees: angle) else { return nil }
        var direction: TurnDirection = angle > 0 ? .right : .left
        if severity == .uturn {
            // Near 180° the sign of the angle is noise; the side the line comes back on is not. A line that
            // comes back on itself is a left U-turn, the way one is made in right-hand traffic.
            let beforeStart = line.coordinate(atDistance: s - farBefore), beforeEnd = line.coordinate(atDistance: s - nearBefore)
            let side = line.coordinate(atDistance: s + farAfter).crossTrackDistanceMeters(fromPathStart: beforeStart, to: beforeEnd)
            direction = abs(side) >= 1 ? (side > 0 ? .right : .left) : .left
        }
        let signed = direction == .right ? abs(angle) : -abs(angle)
        return Cue(coordinate: corner.coordinate, distanceMeters: s, direction: direction, severity: severity, angleDegrees: signed)
    }

    /// The heading of the line between two distances along it, degrees: the direction of the straight line
    /// that fits its points every 2.5 m best (least squares), pointing the way the route goes. A fit uses
    /// every point of the arm, so one noisy fix at either end moves it much less than it moves a chord.
    static func armBearingDegrees(_ line: RoutePolyline, from start: Double, to end: Double, origin: Coordinate) -> Double {
        let scale = LocalScale(latitudeDegrees: origin.latitude)
        let count = max(2, Int(((end - start) / 2.5).rounded()) + 1)
        var east: [Double] = [], north: [Double] = []
        east.reserveCapacity(count)
        north.reserveCapacity(count)
        for k in 0..<count {
            let point = line.coordinate(atDistance: start + (end - start) * Double(k) / Double(count - 1))
            north.append(scale.metersPerRadianNorth * (point.latitude - origin.latitude) * .pi / 180)
            east.append(scale.metersPerRadianEast * EllipsoidalDistance.longitudeDifferenceRadians(from: origin.longitude, to: point.longitude))
        }
        let meanEast = east.reduce(0, +) / Double(count), meanNorth = north.reduce(0, +) / Double(count)
        var see = 0.0, snn = 0.0, sen = 0.0
        for k in 0..<count {
            let e = east[k] - meanEast, n = north[k] - meanNorth
            see += e * e
            snn += n * n
            sen += e * n
        }
        // Principal axis of the points (angle from east, counter-clockwise), then oriented first → last.
        let axis = 0.5 * atan2(2 * sen, see - snn)
        var directionEast = cos(axis), directionNorth = sin(axis)
        if directionEast * (east[count - 1] - east[0]) + directionNorth * (north[count - 1] - north[0]) < 0 {
            directionEast = -directionEast
            directionNorth = -directionNorth
        }
        return normalizedBearing(atan2(directionEast, directionNorth) * 180 / .pi)
    }
}
