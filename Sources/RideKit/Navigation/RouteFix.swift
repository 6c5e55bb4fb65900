import Foundation

/// One position fed to a `RouteFollower`.
public struct RouteFix: Sendable, Hashable, Codable {
    /// Where the device is.
    public var coordinate: Coordinate
    /// Radius of 68 % confidence, metres; nil when the device does not say.
    public var accuracyMeters: Double?
    /// When the fix was taken.
    public var time: Date

    public init(coordinate: Coordinate, accuracyMeters: Double? = nil, time: Date) {
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.time = time
    }
}
