import Foundation

/// The brief's JSON track format (`.gpx436`, DESIGN 2.3): one track as Swift's `Codable` writes it with a
/// default `JSONEncoder`, point times as seconds since 2001-01-01T00:00:00Z.
///
/// `GPXPoint`, `GPXSegment` and `GPXTrack` are the brief's structs, field for field, so the JSON keys are
/// exactly the brief's. `decode` reads such a file into a `GPXDocument`; `encode` writes one.
///
/// The format holds less than GPX, so:
/// - **Altitude** is required. On writing, a point without elevation takes the nearest known elevation
///   before it (or, at the start, after it) in the file, which adds no climb; if no point has one, every
///   altitude is 0. On reading, a file whose altitudes are all exactly 0 is read as having no elevation,
///   otherwise altitudes are elevations.
/// - **Time** is required. A point without time is written as 0 (2001-01-01T00:00:00Z, the format's epoch,
///   a moment no recording has), and 0 is read back as "no time". Times are written as the instant (the
///   UTC offset is not in the format); read times are UTC, with the fewest fractional digits (0–9) that
///   give back the exact same number — bit for bit for any time more than 97 days (2^23 s) from 2001-01-01,
///   where a Double's step is coarser than the nanosecond `GPXTime` keeps.
/// - **name** is the first track's name (else the metadata's, else the first route's), **link** the first
///   link's href of the track (else of the metadata), **time** the metadata time as RFC 3339 (else the first
///   point's time, else ""). Empty strings are read as absent. A `time` that is not RFC 3339 is kept as text
///   in a `bikeride:time` metadata extension, so that it is written back unchanged.
/// - **One track.** All tracks' segments are written in order into the one track (empty segments too); a
///   document without tracks writes each route as a segment. Waypoints are not written. Points with
///   coordinates that are not finite and in range are left out.
/// - **distance** and **feetClimbed** are display strings: miles with two decimals (`"12.34 mi"`) and whole
///   feet (`"1234 ft"`), from the `distanceMeters` and `ascentMeters` the caller computed with its stats, or
///   `"-"` (the brief's default) when not given. They are not read back: stats are recomputed from the
///   points.
///
/// The output differs from a default `JSONEncoder()` only in key order: keys are sorted so that the same
/// document gives the same bytes (a default encoder orders them by hash, differently from run to run).
public enum JSONTrackFormat {
    /// The file extension, without the dot.
    public static let fileExtension = "gpx436"
    static let formatName = ".gpx436"

    /// A point: the brief's `GPXPoint`.
    public struct GPXPoint: Codable, Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double
        public var time: Date

        public init(latitude: Double, longitude: Double, altitude: Double, time: Date) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.time = time
        }
    }

    /// A segment: the brief's `GPXSegment`.
    public struct GPXSegment: Codable, Sendable, Hashable {
        public var coords: [GPXPoint]

        public init(coords: [GPXPoint]) {
            self.coords = coords
        }
    }

    /// The whole file: the brief's `GPXTrack`.
    public struct GPXTrack: Codable, Sendable, Hashable {
        public var name: String
        public var link: String
        public var time: String
        public var segments: [GPXSegment] = []
        public var distance = "-"
        public var feetClimbed = "-"

        public init(
            name: String, link: String, time: String, segments: [GPXSegment] = [], distance: String = "-",
            feetClimbed: String = "-"
        ) {
            self.name = name
            self.link = link
            self.time = time
            self.segments = segments
            self.distance = distance
            self.feetClimbed = feetClimbed
        }
    }

    // MARK: Reading

    /// Reads a `.gpx436` file into a document with one track.
    ///
    /// - Throws: `TrackFormatError` naming the key path for missing keys, wrong JSON types, coordinates
    ///   that are out of range, and times outside the years 1–9999.
    public static func decode(_ data: Data) throws(TrackFormatError) -> GPXDocument {
        let file: GPXTrack
        do {
            file = try JSONDecoder().decode(GPXTrack.self, from: data)
        } catch {
            throw TrackFormatError.decoding(error, format: formatName)
        }
        return try document(from: file)
    }

    /// The document a decoded file stands for (see the type's notes for what maps to what).
    public static func document(from file: GPXTrack) throws(TrackFormatError) -> GPXDocument {
        let hasElevation = file.segments.contains { segment in segment.coords.contains { $0.altitude != 0 } }
        var segments: [TrackSegment] = []
        segments.reserveCapacity(file.segments.count)
        for (segmentIndex, segment) in file.segments.enumerated() {
            var points: [TrackPoint] = []
            points.reserveCapacity(segment.coords.count)
            for (pointIndex, coordinate) in segment.coords.enumerated() {
                let path = "segments[\(segmentIndex)].coords[\(pointIndex)]"
                guard Coordinate(latitude: coordinate.latitude, longitude: coordinate.longitude).isValid else {
                    throw .invalidCoordinate(
                        format: formatName, path: path, latitude: coordinate.latitude, longitude: coordinate.longitude)
                }
                guard coordinate.altitude.isFinite else {
                    throw .invalidValue(format: formatName, path: path + ".altitude", reason: "must be a finite number")
                }
                let time: GPXTime?
                switch gpxTime(coordinate.time) {
                case .success(let value): time = value
                case .failure(let error): throw .invalidValue(format: formatName, path: path + ".time", reason: error.reason)
                }
                points.append(
                    TrackPoint(
                        latitude: coordinate.latitude, longitude: coordinate.longitude,
                        elevation: hasElevation ? coordinate.altitude : nil, time: time))
            }
            segments.append(TrackSegment(points: points))
        }

        var metadata = GPXMetadata()
        if !file.time.isEmpty {
            if let time = try? GPXTime(parsing: file.time) {
                metadata.time = time
            } else {
                metadata.extensions.append(
                    XMLElementNode(
                        namespace: GPXWriter.bikerideNamespace, localName: timeTextElement, prefix: "bikeride",
                        children: [.text(file.time)]))
            }
        }
        let track = Track(
            name: file.name.isEmpty ? nil : file.name,
            links: file.link.isEmpty ? [] : [GPXLink(href: file.link)], segments: segments)
        return GPXDocument(metadata: metadata, tracks: [track])
    }

    /// The local name, in the bikeride namespace, of the metadata extension that keeps a non-RFC 3339 `time`.
    static let timeTextElement = "time"

    // MARK: Writing

    /// Writes a document as a `.gpx436` file.
    ///
    /// - Parameters:
    ///   - distanceMeters: the track's distance from the stats, written as miles; nil writes "-".
    ///   - ascentMeters: the track's climb from the stats, written as feet; nil writes "-".
    public static func encode(
        _ document: GPXDocument, distanceMeters: Double? = nil, ascentMeters: Double? = nil
    ) throws(TrackFormatError) -> Data {
        let file = self.file(from: document, distanceMeters: distanceMeters, ascentMeters: ascentMeters)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(file)
        } catch {
            // Cannot happen: every number is finite by construction.
            throw .invalidValue(format: formatName, path: "", reason: "could not be encoded: \(error)")
        }
    }

    /// The file a document is written as (see the type's notes).
    public static func file(
        from document: GPXDocument, distanceMeters: Double? = nil, ascentMeters: Double? = nil
    ) -> GPXTrack {
        var sourceSegments: [[TrackPoint]] = document.tracks.flatMap { $0.segments.map(\.points) }
        if document.tracks.isEmpty { sourceSegments = document.routes.map(\.points) }
        sourceSegments = sourceSegments.map { points in points.filter(\.coordinate.isValid) }

        // Altitudes: the nearest known elevation before (else after) a point without one; 0 when none.
        let elevations = sourceSegments.joined().map { point in point.elevation.flatMap { $0.isFinite ? $0 : nil } }
        var filled = [Double](repeating: 0, count: elevations.count)
        if let firstKnown = elevations.firstIndex(where: { $0 != nil }) {
            var last = elevations[firstKnown]!
            for index in elevations.indices {
                if let elevation = elevations[index] { last = elevation }
                filled[index] = last
            }
        }

        var segments: [GPXSegment] = []
        var flatIndex = 0
        var firstTime: GPXTime? = nil
        for points in sourceSegments {
            var coords: [GPXPoint] = []
            coords.reserveCapacity(points.count)
            for point in points {
                if firstTime == nil { firstTime = point.time }
                coords.append(
                    GPXPoint(
                        latitude: point.latitude, longitude: point.longitude, altitude: filled[flatIndex],
                        time: point.time.map(date) ?? Date(timeIntervalSinceReferenceDate: 0)))
                flatIndex += 1
            }
            segments.append(GPXSegment(coords: coords))
        }

        let name = TrackFileFormat.trackName(
            firstTrack: document.tracks.first?.name, metadata: document.metadata.name, firstRoute: document.routes.first?.name) ?? ""
        let link = document.tracks.first?.links.first?.href ?? document.metadata.links.first?.href ?? ""
        let keptTimeText = document.metadata.extensions.first {
            $0.namespace == GPXWriter.bikerideNamespace && $0.localName == timeTextElement
        }?.text
        let time = document.metadata.time?.rfc3339 ?? keptTimeText ?? firstTime?.rfc3339 ?? ""
        return GPXTrack(
            name: name, link: link, time: time, segments: segments,
            distance: distanceMeters.flatMap(distanceText) ?? "-", feetClimbed: ascentMeters.flatMap(climbText) ?? "-")
    }

    /// Miles with two decimals, as `distance` shows it: 20_000 m → "12.43 mi". Nil for a negative or
    /// non-finite distance.
    public static func distanceText(meters: Double) -> String? {
        guard meters.isFinite, meters >= 0 else { return nil }
        let hundredths = Int((meters / 1609.344 * 100).rounded())  // 1609.344 m: the international mile
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) mi"
    }

    /// Whole feet, as `feetClimbed` shows it: 376 m → "1234 ft". Nil for a negative or non-finite climb.
    public static func climbText(meters: Double) -> String? {
        guard meters.isFinite, meters >= 0 else { return nil }
        return "\(Int((meters / 0.3048).rounded())) ft"  // 0.3048 m: the international foot
    }

    // MARK: Times

    /// Seconds from 1970 to 2001-01-01T00:00:00Z, the format's epoch.
    private static let epochOffset: Int64 = 978_307_200
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since 1970: what RFC 3339 can write.
    private static let earliestSecond: Int64 = -62_135_596_800
    private static let latestSecond: Int64 = 253_402_300_799

    private struct TimeError: Error {
        var reason: String
    }

    /// The `Date` a time is written as. Computed from whole seconds since 2001 plus the fraction, so that a
    /// time read from the format gives back the same `Double`.
    static func date(_ time: GPXTime) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(time.secondsSince1970 - epochOffset) + Double(time.nanoseconds) * 1e-9)
    }

    /// The time a `Date` of the format stands for: nil for 0 (no time), else UTC with the fewest fractional
    /// digits that round-trip.
    private static func gpxTime(_ date: Date) -> Result<GPXTime?, TimeError> {
        let interval = date.timeIntervalSinceReferenceDate
        if interval == 0 { return .success(nil) }
        guard interval.isFinite,
            interval >= Double(earliestSecond - epochOffset), interval < Double(latestSecond - epochOffset + 1)
        else { return .failure(TimeError(reason: "is \(interval) seconds from 2001, outside the years 1 to 9999")) }
        let whole = interval.rounded(.down)
        let fraction = interval - whole  // exact: a double minus its floor needs no rounding
        var powerOfTen = 1.0
        var best: (seconds: Int64, nanoseconds: Int64, digits: Int) = (Int64(whole), 0, 0)
        for digits in 0...9 {
            var seconds = Int64(whole)
            var nanoseconds = Int64((fraction * powerOfTen).rounded()) * pow10(9 - digits)
            if nanoseconds >= 1_000_000_000 {
                seconds += 1
                nanoseconds -= 1_000_000_000
            }
            best = (seconds, nanoseconds, digits)
            if Double(seconds) + Double(nanoseconds) * 1e-9 == interval { break }
            powerOfTen *= 10
        }
        return .success(
            GPXTime(
                secondsSince1970: best.seconds + epochOffset, nanoseconds: Int32(best.nanoseconds), offset: .utc,
                fractionDigits: Int8(best.nanoseconds == 0 ? 0 : best.digits)))
    }

    private static func pow10(_ exponent: Int) -> Int64 {
        var value: Int64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}
