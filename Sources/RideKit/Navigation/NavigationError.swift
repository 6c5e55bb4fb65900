/// Why a route cannot be followed.
public enum NavigationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The route has fewer than two distinct valid points, so it has no length and no direction.
    case routeTooShort(validPointCount: Int)

    public var description: String {
        switch self {
        case .routeTooShort(let count):
            return "The route has \(count) distinct valid point\(count == 1 ? "" : "s"); following it needs at least two."
        }
    }
}
