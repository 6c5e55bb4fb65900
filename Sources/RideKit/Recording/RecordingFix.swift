/// One position from a device while recording, with the client's sequence number.
///
/// Sequence numbers increase with every fix a client takes during one recording; the `Recorder` stores a fix
/// only if its number is higher than any it has stored, so a batch sent twice, or an old batch sent after a
/// newer one, changes nothing.
public struct RecordingFix: Sendable, Hashable {
    /// The client's number for this fix, increasing within a recording (gaps are allowed).
    public var sequence: Int64
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double
    /// Metres above sea level, if the device knows.
    public var altitudeMeters: Double?
    /// When the fix was taken.
    public var time: GPXTime?
    /// Radius of 68 % confidence around the position, metres (the browser's `coords.accuracy`).
    public var horizontalAccuracyMeters: Double?
    /// Likewise for the altitude, metres.
    public var verticalAccuracyMeters: Double?
    /// Speed measured by the device, metres per second.
    public var speedMetersPerSecond: Double?
    /// Direction of travel, degrees clockwise from true north.
    public var courseDegrees: Double?

    public init(
        sequence: Int64, latitude: Double, longitude: Double, altitudeMeters: Double? = nil, time: GPXTime? = nil,
        horizontalAccuracyMeters: Double? = nil, verticalAccuracyMeters: Double? = nil,
        speedMetersPerSecond: Double? = nil, courseDegrees: Double? = nil
    ) {
        self.sequence = sequence
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
        self.time = time
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.verticalAccuracyMeters = verticalAccuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
    }

    /// The fix's position.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    /// The fix as a GPX track point (accuracy is not a GPX field and is not kept).
    public var trackPoint: TrackPoint {
        TrackPoint(
            latitude: latitude, longitude: longitude, elevation: altitudeMeters, time: time,
            speedMetersPerSecond: speedMetersPerSecond, courseDegrees: courseDegrees
        )
    }

    /// Checks what JSON cannot: positions in range, every number finite, accuracies and speed not negative,
    /// the sequence number not negative (DESIGN 4.3).
    public func validate() throws(RecordingError) {
        guard sequence >= 0 else { throw .invalidFix(sequence: sequence, field: "sequence", reason: "must not be negative") }
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw .invalidFix(sequence: sequence, field: "latitude", reason: "must be a number from -90 to 90")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw .invalidFix(sequence: sequence, field: "longitude", reason: "must be a number from -180 to 180")
        }
        if let altitudeMeters, !altitudeMeters.isFinite {
            throw .invalidFix(sequence: sequence, field: "altitude", reason: "must be a finite number")
        }
        let nonNegative: [(String, Double?)] = [
            ("accuracy", horizontalAccuracyMeters), ("altitudeAccuracy", verticalAccuracyMeters), ("speed", speedMetersPerSecond),
        ]
        for (field, value) in nonNegative {
            if let value, !(value.isFinite && value >= 0) {
                throw .invalidFix(sequence: sequence, field: field, reason: "must be a finite number, not negative")
            }
        }
        if let courseDegrees, !(courseDegrees.isFinite && (0...360).contains(courseDegrees)) {
            throw .invalidFix(sequence: sequence, field: "heading", reason: "must be a number from 0 to 360")
        }
    }
}
