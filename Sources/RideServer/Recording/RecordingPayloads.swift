import Foundation
import Hummingbird
import RideKit

// The JSON of the recordings API (DESIGN 6). Positions in lists are `[latitude, longitude]` pairs, the
// order Leaflet takes; times are RFC 3339 text; everything else is named with its unit.

/// `POST /api/recordings`: every field optional.
struct StartRecordingRequest: Decodable {
    var name: String?
    var activity: ActivityKind?
    var units: UnitSystem?
    var breadcrumbs: Bool?
    var routeTrackId: String?
    /// When the rider pressed Start (RFC 3339), for a start sent late; it names the ride.
    var startedAt: String?
    /// A simulated ride (demo mode): saved as such and left out of the totals.
    var simulated: Bool?

    private enum CodingKeys: String, CodingKey {
        case name, activity, units, breadcrumbs, routeTrackId, startedAt, simulated
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        breadcrumbs = try container.decodeIfPresent(Bool.self, forKey: .breadcrumbs)
        routeTrackId = try container.decodeIfPresent(String.self, forKey: .routeTrackId)
        startedAt = try container.decodeIfPresent(String.self, forKey: .startedAt)
        simulated = try container.decodeIfPresent(Bool.self, forKey: .simulated)
        activity = try Self.choice(container, .activity)
        units = try Self.choice(container, .units)
    }

    /// An enum value, refused with the list of the values it can take.
    private static func choice<T: RawRepresentable & CaseIterable>(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
    ) throws -> T? where T.RawValue == String {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError.badRequest("invalid_value", "\(key.stringValue) must be one of \(allowed), not \"\(text)\"")
        }
        return value
    }
}

/// One fix, as the web app sends it (the browser's `GeolocationCoordinates` names).
struct FixPayload: Decodable {
    var sequence: Int64
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    /// Metres, 68 % confidence radius.
    var accuracy: Double?
    var altitudeAccuracy: Double?
    /// Metres per second.
    var speed: Double?
    /// Degrees clockwise from true north.
    var heading: Double?
    /// RFC 3339.
    var time: String?

    func fix() throws -> RecordingFix {
        var time: GPXTime?
        if let text = self.time {
            do {
                time = try GPXTime(parsing: text)
            } catch {
                throw APIError.badRequest("invalid_fix", "fix \(sequence): time must be an RFC 3339 time such as 2024-05-01T10:00:00Z; nothing of this batch was stored")
            }
        }
        return RecordingFix(
            sequence: sequence, latitude: latitude, longitude: longitude, altitudeMeters: altitude, time: time,
            horizontalAccuracyMeters: accuracy, verticalAccuracyMeters: altitudeAccuracy, speedMetersPerSecond: speed,
            courseDegrees: heading
        )
    }
}

/// `POST /api/recordings/{id}/fixes`.
struct FixBatchRequest: Decodable {
    var fixes: [FixPayload]
    /// What the batch's altitudes are measured from: `"ellipsoid"` (WGS-84, as browsers on Android report them) or
    /// `"seaLevel"`; absent means sea level, as clients sent before there was a choice.
    var altitudeReference: AltitudeReference?

    private enum CodingKeys: String, CodingKey { case fixes, altitudeReference }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fixes = try container.decode([FixPayload].self, forKey: .fixes)
        if let text = try container.decodeIfPresent(String.self, forKey: .altitudeReference) {
            guard let reference = AltitudeReference(rawValue: text) else {
                let allowed = AltitudeReference.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError.badRequest("invalid_value", "altitudeReference must be one of \(allowed), not \"\(text)\"; nothing of this batch was stored")
            }
            altitudeReference = reference
        }
    }

    /// The batch's fixes, their altitudes above sea level (bikeride stores no other kind).
    func recordingFixes() throws -> [RecordingFix] {
        try fixes.map { payload in
            var fix = try payload.fix()
            if let reference = altitudeReference, let altitude = fix.altitudeMeters {
                fix.altitudeMeters = reference.seaLevelMeters(altitude, latitude: fix.latitude, longitude: fix.longitude)
            }
            return fix
        }
    }
}

/// Live figures.
struct StatsPayload: Encodable {
    var distanceMeters: Double
    var elapsedSeconds: Double
    var movingSeconds: Double
    var stoppedSeconds: Double
    var pausedSeconds: Double
    var averageSpeedMetersPerSecond: Double
    var maxSpeedMetersPerSecond: Double
    var currentSpeedMetersPerSecond: Double?
    var ascentMeters: Double
    var descentMeters: Double
    var pointCount: Int
    var segmentCount: Int
    var startTime: String?
    /// Time of the last fix: the web app counts elapsed time on from it between batches.
    var lastFixTime: String?

    init(_ stats: TrackStats, currentSpeed: Double? = nil) {
        distanceMeters = stats.distanceMeters
        elapsedSeconds = stats.elapsedSeconds
        movingSeconds = stats.movingSeconds
        stoppedSeconds = stats.stoppedSeconds
        pausedSeconds = stats.pausedSeconds
        averageSpeedMetersPerSecond = stats.averageSpeedMetersPerSecond
        maxSpeedMetersPerSecond = stats.maxSpeedMetersPerSecond
        currentSpeedMetersPerSecond = currentSpeed
        ascentMeters = stats.ascentMeters
        descentMeters = stats.descentMeters
        pointCount = stats.pointCount
        segmentCount = stats.segmentCount
        startTime = stats.startTime?.inUTC.rfc3339
        lastFixTime = stats.endTime?.inUTC.rfc3339
    }
}

struct BoundsPayload: Encodable {
    var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double

    init(_ bounds: GPXBounds) {
        minLatitude = bounds.minLatitude
        minLongitude = bounds.minLongitude
        maxLatitude = bounds.maxLatitude
        maxLongitude = bounds.maxLongitude
    }
}

/// Where the map goes.
struct CameraPayload: Encodable {
    var center: [Double]
    var radiusMeters: Double
    var bounds: BoundsPayload

    init(_ region: CameraRegion) {
        center = [region.center.latitude, region.center.longitude]
        radiusMeters = region.radiusMeters
        bounds = BoundsPayload(region.bounds)
    }
}

struct BreadcrumbPayload: Encodable {
    var position: [Double]
    var sequence: Int64
    var distanceMeters: Double
    var title: String
    var subtitle: String

    init(_ pin: Breadcrumb) {
        position = [pin.coordinate.latitude, pin.coordinate.longitude]
        sequence = pin.sequence
        distanceMeters = pin.distanceMeters
        title = pin.title
        subtitle = pin.subtitle
    }
}

/// New points of one segment: draw a line from `from` (when present) through `points`.
struct PathPayload: Encodable {
    var segment: Int
    var from: [Double]?
    var points: [[Double]]

    init(_ path: PathExtension) {
        segment = path.segmentIndex
        from = path.from.map { [$0.latitude, $0.longitude] }
        points = path.coordinates.map { [$0.latitude, $0.longitude] }
    }
}

struct RecordingOptionsPayload: Encodable {
    var activity: ActivityKind
    var units: UnitSystem
    var breadcrumbs: Bool
    var cameraRadiusMeters: Double
    var breadcrumbSpacingMeters: Double
}

/// A recording: the answer to start, get, pause, resume and stop. `path` and `breadcrumbs` hold the whole
/// recording so far (the web app redraws from them after a reload).
struct RecordingResponse: ResponseEncodable {
    var id: String
    /// The client's own id, for a recording it started with `PUT /api/recordings/{clientId}`.
    var clientId: String?
    var name: String
    var state: RecorderState
    var startedAt: String
    var trackId: String?
    var routeTrackId: String?
    var lastSequence: Int64?
    /// A simulated ride (saved with source `simulation`): the Record tab keeps its badge after a reload.
    var simulated: Bool
    var options: RecordingOptionsPayload
    var stats: StatsPayload
    var path: [PathPayload]
    var breadcrumbs: [BreadcrumbPayload]
    /// Elevation and speed against distance, once stopped (the charts of the track page).
    var profile: ProfilePayload?
    /// Where the rider is on the route, while following one.
    var navigation: NavigationPayload?

    init(info: RecordingInfo, recorder: Recorder, navigation: Navigation? = nil) {
        self.navigation = navigation.map(NavigationPayload.init)
        id = info.id
        clientId = info.clientID
        name = info.name
        state = recorder.state
        startedAt = GPXTime(date: info.startedAt).rfc3339
        trackId = info.trackID
        routeTrackId = info.routeTrackID
        lastSequence = recorder.lastSequence
        simulated = info.simulated
        let options = recorder.options
        self.options = RecordingOptionsPayload(
            activity: options.activity, units: options.units, breadcrumbs: options.breadcrumbsEnabled,
            cameraRadiusMeters: options.cameraRadiusMeters, breadcrumbSpacingMeters: options.breadcrumbSpacingMeters
        )
        stats = StatsPayload(recorder.stats)
        path = recorder.segments.enumerated().map { index, segment in
            PathPayload(PathExtension(segmentIndex: index, from: nil, coordinates: segment.points.map(\.coordinate)))
        }
        breadcrumbs = recorder.breadcrumbs.map(BreadcrumbPayload.init)
        if recorder.state == .stopped { profile = ProfilePayload(TrackProfile(track: recorder.track, activity: options.activity)) }
    }
}

/// `TrackProfile` as JSON: arrays of the same length, null where a sample has no value. `heartRate`,
/// `cadence` and `powerWatts` are there only when the track has such values; `positions` (`[latitude,
/// longitude]` where each sample ends) lets a chart's cursor show its place on the map.
struct ProfilePayload: Encodable {
    var distanceMeters: [Double]
    var elevationMeters: [Double?]
    var speedMetersPerSecond: [Double?]
    var heartRate: [Double?]?
    var cadence: [Double?]?
    var powerWatts: [Double?]?
    var positions: [[Double]]

    init(_ profile: TrackProfile) {
        distanceMeters = profile.distanceMeters
        elevationMeters = profile.elevationMeters
        speedMetersPerSecond = profile.speedMetersPerSecond
        heartRate = profile.hasHeartRate ? profile.heartRate : nil
        cadence = profile.hasCadence ? profile.cadence : nil
        powerWatts = profile.hasPower ? profile.powerWatts : nil
        // Six decimals: 0.1 m, plenty for a marker.
        positions = profile.positions.map { [($0.latitude * 1e6).rounded() / 1e6, ($0.longitude * 1e6).rounded() / 1e6] }
    }
}

/// The answer to a batch of fixes: what the view shows next.
struct FixBatchResponse: ResponseEncodable {
    struct RecordingState: Encodable {
        var id: String
        var clientId: String?
        var state: RecorderState
        /// Every fix up to this number is stored: the client may forget them.
        var lastSequence: Int64?
    }
    var recording: RecordingState
    var stored: Int
    var duplicates: Int
    var skipped: Int
    var stats: StatsPayload
    var camera: CameraPayload?
    var breadcrumbs: [BreadcrumbPayload]
    var path: [PathPayload]
    /// Where the rider is on the route after the batch, while following one (absent otherwise).
    var navigation: NavigationPayload?

    init(info: RecordingInfo, update: RecordingUpdate, navigation: Navigation? = nil) {
        self.navigation = navigation.map(NavigationPayload.init)
        recording = RecordingState(id: info.id, clientId: info.clientID, state: update.state, lastSequence: update.lastSequence)
        stored = update.storedCount
        duplicates = update.duplicateCount
        skipped = update.skippedCount
        stats = StatsPayload(update.stats, currentSpeed: update.currentSpeedMetersPerSecond)
        camera = update.camera.map(CameraPayload.init)
        breadcrumbs = update.breadcrumbs.map(BreadcrumbPayload.init)
        path = update.path.map(PathPayload.init)
    }
}

/// Where the rider is on the route they follow (`RouteFollower`'s `Navigation`): the next cue, with the text
/// to show or say in the recording's units, or null past the last cue and while off the route.
struct NavigationPayload: Encodable {
    struct NextCue: Encodable {
        /// "Turn right in 50 feet".
        var text: String
        var direction: TurnDirection
        var severity: TurnSeverity
        /// Along the route, from the rider's position on it to the cue.
        var distanceMeters: Double
        var latitude: Double
        var longitude: Double
    }
    var nextCue: NextCue?
    var offRoute: Bool
    /// Null before the first fix.
    var distanceFromRouteMeters: Double?
    var remainingMeters: Double
    var progressMeters: Double
    /// The follower's state, from which the web app follows the route itself until the next answer.
    var state: FollowerStatePayload?

    /// `RouteFollower.State` with times in milliseconds since 1970, as JavaScript counts them.
    struct FollowerStatePayload: Encodable {
        var progressMeters: Double
        var hasJoined: Bool
        var offRoute: Bool
        var distanceFromRouteMeters: Double?
        var lastFixTime: Double?
        var lastFixLatitude: Double?
        var lastFixLongitude: Double?

        init(_ state: RouteFollower.State) {
            progressMeters = state.progressMeters
            hasJoined = state.hasJoined
            offRoute = state.offRoute
            distanceFromRouteMeters = state.distanceFromRouteMeters
            lastFixTime = state.lastFixTime.map { $0.timeIntervalSince1970 * 1000 }
            lastFixLatitude = state.lastFixCoordinate?.latitude
            lastFixLongitude = state.lastFixCoordinate?.longitude
        }
    }

    init(_ navigation: Navigation) {
        state = navigation.state.map(FollowerStatePayload.init)
        nextCue = navigation.nextCue.map {
            NextCue(text: $0.text, direction: $0.cue.direction, severity: $0.cue.severity, distanceMeters: $0.distanceMeters,
                    latitude: $0.cue.coordinate.latitude, longitude: $0.cue.coordinate.longitude)
        }
        offRoute = navigation.offRoute
        distanceFromRouteMeters = navigation.distanceFromRouteMeters
        remainingMeters = navigation.remainingMeters
        progressMeters = navigation.progressMeters
    }

    private enum CodingKeys: String, CodingKey {
        case nextCue, offRoute, distanceFromRouteMeters, remainingMeters, progressMeters, state
    }

    // Written out so that "no next cue" is an explicit null, which the client tests for.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nextCue, forKey: .nextCue)
        try container.encode(offRoute, forKey: .offRoute)
        try container.encode(distanceFromRouteMeters, forKey: .distanceFromRouteMeters)
        try container.encode(remainingMeters, forKey: .remainingMeters)
        try container.encode(progressMeters, forKey: .progressMeters)
        try container.encodeIfPresent(state, forKey: .state)
    }
}

/// `PATCH /api/recordings/{id}`: `{"routeTrackId": "…"}` follows that track from now on, `null` follows none.
struct RecordingChangesRequest: Decodable {
    /// Present (a track id or null) or absent (no change).
    var routeTrackId: String??

    private enum CodingKeys: String, CodingKey { case routeTrackId }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.routeTrackId) {
            routeTrackId = .some(try container.decodeNil(forKey: .routeTrackId) ? nil : try container.decode(String.self, forKey: .routeTrackId))
        }
    }
}

/// `POST /api/recordings/{id}/laps`.
struct LapRequest: Decodable {
    var time: String
}

/// The lap marks of a recording, RFC 3339 in UTC with milliseconds.
struct LapMarksResponse: ResponseEncodable {
    var laps: [String]

    static func text(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return GPXTime(secondsSince1970: seconds, nanoseconds: Int32(milliseconds - seconds * 1000) * 1_000_000, fractionDigits: 3).rfc3339
    }
}
