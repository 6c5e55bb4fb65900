/// What a rider following a route is told after a fix: the next cue, and whether they are on the route.
public struct Navigation: Sendable, Hashable, Codable {
    /// The next cue ahead and how far along the route it is.
    public struct UpcomingCue: Sendable, Hashable, Codable {
        /// The cue itself.
        public var cue: Cue
        /// Distance along the route from the rider's position on it to the cue, metres.
        public var distanceMeters: Double
        /// What to say: "Turn right in 50 feet".
        public var text: String

        public init(cue: Cue, distanceMeters: Double, text: String) {
            self.cue = cue
            self.distanceMeters = distanceMeters
            self.text = text
        }
    }

    /// The next cue; nil past the last cue, and while off the route (a distance along the route means
    /// nothing then: the off-route warning takes its place).
    public var nextCue: UpcomingCue?
    /// True while the rider is farther from the route than the off-route threshold (and until they are back
    /// well inside it).
    public var offRoute: Bool
    /// Distance from the rider to the route, metres: to the part being followed while on it, to the nearest
    /// part of it while off it; nil before the first fix.
    public var distanceFromRouteMeters: Double?
    /// Distance along the route from the rider's position on it to its end, metres.
    public var remainingMeters: Double
    /// Distance along the route from its start to the rider's position on it, metres.
    public var progressMeters: Double
    /// The follower's whole state at this answer (nil when not made by a follower): a client that follows the
    /// route itself between answers (the web app offline) goes on from here.
    public var state: RouteFollower.State?

    public init(
        nextCue: UpcomingCue?, offRoute: Bool, distanceFromRouteMeters: Double?, remainingMeters: Double, progressMeters: Double,
        state: RouteFollower.State? = nil
    ) {
        self.state = state
        self.nextCue = nextCue
        self.offRoute = offRoute
        self.distanceFromRouteMeters = distanceFromRouteMeters
        self.remainingMeters = remainingMeters
        self.progressMeters = progressMeters
    }
}
