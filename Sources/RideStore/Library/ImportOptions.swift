import Foundation
import RideKit

/// How files are imported.
public struct ImportOptions: Sendable, Hashable {
    /// Each GPX `trk` becomes a track of its own (and each `rte` a route), or the whole file one track.
    public var oneTrackPerFile: Bool
    /// The kind of the new tracks; nil guesses from the file (a GPX `type` such as "running"), else ride.
    public var kind: TrackKind?
    /// Also make a place of each waypoint.
    public var waypointsAsPlaces: Bool
    /// Import a file even when the same content was imported before.
    public var allowsDuplicates: Bool
    /// Read GPX leniently: drop invalid points and values instead of refusing the file.
    public var lenient: Bool
    /// A gzip-compressed GPX file inflating to more than this is refused (nil: the reader's own limit, 4 GiB).
    public var maximumInflatedBytes: Int?
    /// The name and description of the track a file becomes, when something outside the file says them (a
    /// Strava export's `activities.csv`); with `oneTrackPerFile`.
    public var trackName: String?
    public var trackDescription: String?
    /// Where the track came from and what its device measured, when an export says so (a bikeride export's
    /// `tracks.json`); with `oneTrackPerFile`.
    var trackSource: TrackSource?
    var deviceMeasurements: DeviceMeasurements?
    /// Points one track may have (the library's `StorageLimits`, set by `TrackLibrary.limited(_:)`).
    var maximumTrackPoints: Int?

    var readOptions: GPXReadOptions {
        var options = GPXReadOptions(lenient: lenient)
        if let maximumInflatedBytes { options.maximumInflatedBytes = maximumInflatedBytes }
        return options
    }

    public init(
        oneTrackPerFile: Bool = false, kind: TrackKind? = nil, waypointsAsPlaces: Bool = false, allowsDuplicates: Bool = false,
        lenient: Bool = false
    ) {
        self.oneTrackPerFile = oneTrackPerFile
        self.kind = kind
        self.waypointsAsPlaces = waypointsAsPlaces
        self.allowsDuplicates = allowsDuplicates
        self.lenient = lenient
    }
}
