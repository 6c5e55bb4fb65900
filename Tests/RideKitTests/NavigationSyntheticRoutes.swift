import Foundation
import RideKit
import TestSupport

/// Synthetic routes with known corners, for measuring turn detection against truth.
///
/// A route is laid out on a local plane (metres east and north of an anchor): straight legs joined by
/// corners of known signed angle, some legs bending gently (20–90° over 150–400 m, which is not a turn),
/// some only 40–60 m long (jogs). It is then put on the earth with `Coordinate.destination`, the anchor
/// anywhere, sometimes right at the antimeridian. Three renderings of the same route:
/// - `.cornersOnly`: a planner's export, a point at each corner (and every ~40 m along a bend);
/// - `.routingEngine`: a point every 10–20 m, corners included;
/// - `.recording`: a rider at 4–8 m/s logging at 1 Hz, cutting every corner along a curve that starts
///   8–15 m before it, with GPS noise (a slowly wandering error of 3 m, correlated over 20 s, plus 1 m of
///   jitter per fix; optionally spikes: fixes thrown 20–50 m off).
/// Corner angles avoid the 5° either side of each class boundary (30, 60, 120, 160°), where the class is a
/// matter of opinion: slight 35–55°, turn 65–115°, sharp 125–155°, U-turn 165–180°.
struct SyntheticRoute {
    /// A corner of the route as laid out: where, and its signed change of heading (right positive).
    struct Corner {
        var coordinate: Coordinate
        var angleDegrees: Double
    }

    enum Density: String, CaseIterable {
        case cornersOnly, routingEngine, recording
    }

    var corners: [Corner]
    /// The route rendered at each density.
    var lines: [Density: [Coordinate]]

    /// GPS error of the `.recording` rendering: the wandering part and the per-fix jitter, metres.
    struct Noise: Sendable {
        var wanderMeters = 3.0
        var jitterMeters = 1.0
        /// Share of fixes thrown 20–50 m off in any direction (multipath), each back at the next fix.
        var spikeFraction = 0.0
    }

    /// A random route of `cornerCount` corners.
    static func random(cornerCount: Int, noise: Noise = Noise(), using random: inout SeededGenerator) -> SyntheticRoute {
        var plan = PlanePath()
        var heading = random.unit() * 360
        for index in 0...cornerCount {
            let short = index > 0 && index < cornerCount && random.unit() < 0.15
            if short {
                plan.straight(length: 40 + random.unit() * 20, heading: heading)
            } else if random.unit() < 0.3 {
                // A gentle bend inside the leg: the heading changes, but no corner is made.
                plan.straight(length: 40 + random.unit() * 60, heading: heading)
                let bend = (20 + random.unit() * 70) * (random.unit() < 0.5 ? -1 : 1)
                let arcLength = 150 + random.unit() * 250
                heading = plan.arc(length: arcLength, startHeading: heading, turnDegrees: bend)
                plan.straight(length: 40 + random.unit() * 60, heading: heading)
            } else {
                plan.straight(length: 80 + random.unit() * 220, heading: heading)
            }
            guard index < cornerCount else { break }
            let angle = randomCornerAngle(using: &random)
            plan.markCorner(angleDegrees: angle)
            heading += angle
        }
        return render(plan, anchor: randomAnchor(using: &random), noise: noise, using: &random)
    }

    /// A corner angle away from the class boundaries, either sign.
    static func randomCornerAngle(using random: inout SeededGenerator) -> Double {
        let band = random.unit()
        let size: Double
        if band < 0.2 { size = 35 + random.unit() * 20 } else if band < 0.65 { size = 65 + random.unit() * 50 } else if band < 0.88 {
            size = 125 + random.unit() * 30
        } else { size = 165 + random.unit() * 15 }
        return random.unit() < 0.5 ? -size : size
    }

    static func randomAnchor(using random: inout SeededGenerator) -> Coordinate {
        if random.unit() < 0.2 {
            // Within a kilometre or two of the antimeridian, so that many routes cross it.
            return Coordinate(latitude: random.symmetric(60), longitude: random.unit() < 0.5 ? 179.99 : -179.99)
        }
        return Coordinate(latitude: random.symmetric(70), longitude: random.symmetric(180))
    }

    /// Puts a plane path on the earth at every density.
    static func render(_ plan: PlanePath, anchor: Coordinate, noise: Noise, using random: inout SeededGenerator) -> SyntheticRoute {
        func place(_ point: PlanePoint) -> Coordinate {
            let distance = (point.x * point.x + point.y * point.y).squareRoot()
            guard distance > 0 else { return anchor }
            return anchor.destination(distanceMeters: distance, bearingDegrees: atan2(point.x, point.y) * 180 / .pi)
        }
        let corners = plan.corners.map { Corner(coordinate: place(plan.points[$0.index]), angleDegrees: $0.angleDegrees) }
        var lines: [Density: [Coordinate]] = [:]
        lines[.cornersOnly] = plan.cornersOnlyIndexes().map { place(plan.points[$0]) }
        lines[.routingEngine] = plan.routingEngineIndexes(using: &random).map { place(plan.points[$0]) }
        lines[.recording] = plan.recording(noise: noise, using: &random).map(place)
        return SyntheticRoute(corners: corners, lines: lines)
    }
}

/// Metres east (x) and north (y) of an anchor.
struct PlanePoint {
    var x: Double
    var y: Double
}

/// A path on the plane drawn a metre at a time, with its corners and bends remembered.
struct PlanePath {
    var points: [PlanePoint] = [PlanePoint(x: 0, y: 0)]
    var corners: [(index: Int, angleDegrees: Double)] = []
    /// Index ranges of the gentle bends.
    var bends: [ClosedRange<Int>] = []

    mutating func straight(length: Double, heading: Double) {
        let steps = Int(length.rounded())
        let radians = heading * .pi / 180
        for _ in 0..<steps {
            let last = points[points.count - 1]
            points.append(PlanePoint(x: last.x + sin(radians), y: last.y + cos(radians)))
        }
    }

    /// A circular arc of `length` metres turning `turnDegrees` in all; returns the heading at its end.
    mutating func arc(length: Double, startHeading: Double, turnDegrees: Double) -> Double {
        let steps = Int(length.rounded())
        let start = points.count - 1
        for step in 0..<steps {
            let heading = (startHeading + turnDegrees * (Double(step) + 0.5) / Double(steps)) * .pi / 180
            let last = points[points.count - 1]
            points.append(PlanePoint(x: last.x + sin(heading), y: last.y + cos(heading)))
        }
        bends.append(start...(points.count - 1))
        return startHeading + turnDegrees
    }

    mutating func markCorner(angleDegrees: Double) {
        corners.append((points.count - 1, angleDegrees))
    }

    /// Start, corners, end, and every 40 m along a bend.
    func cornersOnlyIndexes() -> [Int] {
        var indexes = Set([0, points.count - 1])
        for corner in corners { indexes.insert(corner.index) }
        for bend in bends {
            for index in stride(from: bend.lowerBound, through: bend.upperBound, by: 40) { indexes.insert(index) }
            indexes.insert(bend.upperBound)
        }
        return indexes.sorted()
    }

    /// A point every 10–20 m, every corner included.
    func routingEngineIndexes(using random: inout SeededGenerator) -> [Int] {
        let cornerIndexes = Set(corners.map(\.index))
        var indexes = [0]
        var next = 10 + Int(random.unit() * 10)
        for index in 1..<points.count {
            if cornerIndexes.contains(index) || index == points.count - 1 || index >= next {
                indexes.append(index)
                next = index + 10 + Int(random.unit() * 10)
            }
        }
        return indexes
    }

    /// A 1 Hz ride along the path: corners cut, noise added.
    func recording(noise: SyntheticRoute.Noise, using random: inout SeededGenerator) -> [PlanePoint] {
        // The ridden line: each corner replaced by a quadratic curve from `cut` metres before it to `cut` after.
        var ridden: [PlanePoint] = []
        var index = 0
        var cornerPosition = 0
        while index < points.count {
            if cornerPosition < corners.count {
                let corner = corners[cornerPosition].index
                let previousCorner = cornerPosition > 0 ? corners[cornerPosition - 1].index : 0
                let nextCorner = cornerPosition + 1 < corners.count ? corners[cornerPosition + 1].index : points.count - 1
                let cut = Int(min(8 + random.unit() * 7, 0.4 * Double(corner - previousCorner), 0.4 * Double(nextCorner - corner)))
                if index == corner - cut && cut >= 1 {
                    let a = points[corner - cut], v = points[corner], b = points[corner + cut]
                    for step in 0..<(2 * cut) {
                        let t = Double(step) / Double(2 * cut)
                        let u = 1 - t
                        ridden.append(PlanePoint(x: u * u * a.x + 2 * u * t * v.x + t * t * b.x, y: u * u * a.y + 2 * u * t * v.y + t * t * b.y))
                    }
                    index = corner + cut
                    cornerPosition += 1
                    continue
                }
            }
            ridden.append(points[index])
            index += 1
        }
        // Fixes every `speed` metres of the ridden line, with a wandering error and a little jitter.
        let speed = 4 + random.unit() * 4
        let correlation = exp(-1.0 / 20), wander = noise.wanderMeters, jitter = noise.jitterMeters
        var error = PlanePoint(x: random.symmetric(wander), y: random.symmetric(wander))
        var fixes: [PlanePoint] = []
        var travelled = 0.0, nextFix = 0.0
        for k in 0..<ridden.count {
            if k > 0 {
                let dx = ridden[k].x - ridden[k - 1].x, dy = ridden[k].y - ridden[k - 1].y
                travelled += (dx * dx + dy * dy).squareRoot()
            }
            guard travelled >= nextFix else { continue }
            nextFix += speed
            let innovation = wander * (1 - correlation * correlation).squareRoot() * 1.7
            error = PlanePoint(x: correlation * error.x + random.symmetric(innovation), y: correlation * error.y + random.symmetric(innovation))
            var fix = PlanePoint(x: ridden[k].x + error.x + random.symmetric(jitter), y: ridden[k].y + error.y + random.symmetric(jitter))
            if noise.spikeFraction > 0 && random.unit() < noise.spikeFraction {
                let distance = 20 + random.unit() * 30, direction = random.unit() * 2 * .pi
                fix.x += distance * sin(direction)
                fix.y += distance * cos(direction)
            }
            fixes.append(fix)
        }
        return fixes
    }
}

/// Precision, recall and class agreement of detected cues against known corners.
struct DetectionScore {
    var truthCount = 0
    var cueCount = 0
    var matched = 0
    var classRight = 0

    var precision: Double { cueCount == 0 ? 1 : Double(matched) / Double(cueCount) }
    var recall: Double { truthCount == 0 ? 1 : Double(matched) / Double(truthCount) }
    var classAgreement: Double { matched == 0 ? 1 : Double(classRight) / Double(matched) }

    /// Matches corners to cues in route order: each corner takes the nearest unused cue within
    /// `radiusMeters` among the next few, so a route that comes back past a corner cannot match it twice.
    mutating func add(truth: [SyntheticRoute.Corner], cues: [Cue], radiusMeters: Double = 30) {
        truthCount += truth.count
        cueCount += cues.count
        var next = 0
        for corner in truth {
            var best: Int?
            var bestDistance = radiusMeters
            for j in next..<min(cues.count, next + 6) {
                let distance = corner.coordinate.distanceMeters(to: cues[j].coordinate)
                if distance <= bestDistance { bestDistance = distance; best = j }
            }
            guard let match = best else { continue }
            matched += 1
            next = match + 1
            let cue = cues[match]
            if cue.severity == TurnSeverity(angleDegrees: corner.angleDegrees),
               cue.severity == .uturn || (cue.direction == .right) == (corner.angleDegrees > 0) {
                classRight += 1
            }
        }
    }

    var summary: String {
        func percent(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }
        return "corners \(truthCount), cues \(cueCount), matched \(matched): precision \(percent(precision)), "
            + "recall \(percent(recall)), class right \(percent(classAgreement))"
    }
}
