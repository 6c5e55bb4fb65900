import RideKit
import TestSupport


/// Builds rides of known geometry: positions from a path function of the distance travelled, taken at a
/// fixed speed and sampling interval, with optional elevation profile and seeded noise.
struct SyntheticRide {
    /// A path: the position after `meters` of travel.
    var path: (Double) -> Coordinate
    var lengthMeters: Double
    var speedMetersPerSecond: Double = 5
    var intervalSeconds: Double = 1
    var elevation: ((Double) -> Double)? = nil
    /// Uniform scatter, metres, added independently east and north to every fix.
    var horizontalJitterMeters: Double = 0
    /// Uniform scatter, metres, added to every elevation.
    var verticalNoiseMeters: Double = 0
    var startSeconds: Double = 1_700_000_000
    var seed: UInt64 = 1

    /// Fixes from distance 0 to `lengthMeters` inclusive.
    func points() -> [TrackPoint] {
        var random = SeededGenerator(seed: seed)
        var result: [TrackPoint] = []
        let step = speedMetersPerSecond * intervalSeconds
        var index = 0
        while true {
            let meters = min(Double(index) * step, lengthMeters)
            let seconds = startSeconds + meters / speedMetersPerSecond
            var position = path(meters)
            if horizontalJitterMeters > 0 {
                position = offset(position, east: random.symmetric(horizontalJitterMeters), north: random.symmetric(horizontalJitterMeters))
            }
            var height = elevation?(meters)
            if verticalNoiseMeters > 0, let value = height { height = value + random.symmetric(verticalNoiseMeters) }
            result.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: height, time: gpxTime(seconds)))
            if meters >= lengthMeters { break }
            index += 1
        }
        return result
    }

    // MARK: Paths

    /// A geodesic from `start` at `bearing`.
    static func line(from start: Coordinate, bearingDegrees: Double) -> (Double) -> Coordinate {
        { meters in start.destination(distanceMeters: meters, bearingDegrees: bearingDegrees) }
    }

    /// A circle of `radiusMeters` around `center`, starting due north of it, clockwise.
    static func circle(center: Coordinate, radiusMeters: Double) -> (Double) -> Coordinate {
        { meters in center.destination(distanceMeters: radiusMeters, bearingDegrees: meters / radiusMeters * 180 / .pi) }
    }

    /// Out along a geodesic for `halfMeters`, then back the same way.
    static func outAndBack(from start: Coordinate, bearingDegrees: Double, halfMeters: Double) -> (Double) -> Coordinate {
        { meters in
            start.destination(distanceMeters: meters <= halfMeters ? meters : 2 * halfMeters - meters, bearingDegrees: bearingDegrees)
        }
    }

    /// A staircase through a street grid: alternately `blockMeters` east and `blockMeters` north, with a
    /// right-angle corner at the end of every block.
    static func staircase(from start: Coordinate, blockMeters: Double) -> (Double) -> Coordinate {
        { meters in
            let block = Int(meters / blockMeters)
            let within = meters - Double(block) * blockMeters
            let east = Double((block + 1) / 2) * blockMeters + (block % 2 == 0 ? within : 0)
            let north = Double(block / 2) * blockMeters + (block % 2 == 1 ? within : 0)
            return offset(start, east: east, north: north)
        }
    }
}

/// `coordinate` moved by small distances east and north, metres, on the local scale of the ellipsoid.
func offset(_ coordinate: Coordinate, east: Double, north: Double) -> Coordinate {
    let scale = LocalScale(latitudeDegrees: coordinate.latitude)
    return Coordinate(
        latitude: coordinate.latitude + north / scale.metersPerRadianNorth * 180 / .pi,
        longitude: coordinate.longitude + east / scale.metersPerRadianEast * 180 / .pi
    )
}

/// A UTC time from seconds since 1970 with a fraction.
func gpxTime(_ seconds: Double) -> GPXTime {
    let whole = seconds.rounded(.down)
    return GPXTime(secondsSince1970: Int64(whole), nanoseconds: Int32(min(999_999_999, ((seconds - whole) * 1e9).rounded())), offset: .utc, fractionDigits: 3)
}

/// Stats of the given points as one segment.
func stats(of points: [TrackPoint], activity: ActivityKind = .ride) -> TrackStats {
    Track(segments: [TrackSegment(points: points)]).stats(activity: activity)
}

/// |measured / truth − 1|.
func relativeError(_ measured: Double, _ truth: Double) -> Double { abs(measured / truth - 1) }
