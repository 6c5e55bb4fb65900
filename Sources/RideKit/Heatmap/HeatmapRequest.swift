/// What a heatmap tile request asks for, checked: the tile (zoom 0…18, x and y inside the zoom's range) and the
/// filter. Every field comes from a URL, so each is read strictly and refused with a message naming it.
public struct HeatmapRequest: Sendable, Hashable {
    public var tile: MapTile
    public var filter: HeatmapFilter

    /// The deepest zoom served (the web map's deepest).
    public static let maximumZoom = 18

    public init(tile: MapTile, filter: HeatmapFilter) {
        self.tile = tile
        self.filter = filter
    }

    /// Reads `z`, `x`, `y` (decimal, no sign, at most a few digits) and the filter's `kind` and `year`.
    public init(z: String, x: String, y: String, kind: String?, year: String?) throws(HeatmapRequestError) {
        let zoom = try Self.number(z, field: "z", maximumDigits: 2)
        guard zoom <= Self.maximumZoom else { throw .invalid(field: "z", reason: "zoom is 0 to \(Self.maximumZoom)") }
        let limit = 1 << zoom
        let column = try Self.number(x, field: "x", maximumDigits: 6)
        let row = try Self.number(y, field: "y", maximumDigits: 6)
        guard column < limit else { throw .invalid(field: "x", reason: "x is 0 to \(limit - 1) at zoom \(zoom)") }
        guard row < limit else { throw .invalid(field: "y", reason: "y is 0 to \(limit - 1) at zoom \(zoom)") }
        self.init(tile: MapTile(x: column, y: row, zoom: zoom), filter: try HeatmapFilter(kind: kind, year: year))
    }

    static func number(_ text: String, field: String, maximumDigits: Int) throws(HeatmapRequestError) -> Int {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maximumDigits, utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text) else {
            throw .invalid(field: field, reason: "\(field) must be a whole number")
        }
        return value
    }
}

/// Which tracks a heatmap counts: all, or one kind (ride, run, walk; routes are plans, never counted), or one year.
public struct HeatmapFilter: Sendable, Hashable {
    public var kind: TrackKind?
    public var year: Int?

    /// Years a track may be counted in.
    public static let years = 1970...2200

    public init(kind: TrackKind? = nil, year: Int? = nil) {
        self.kind = kind
        self.year = year
    }

    /// Reads the query's `kind` and `year` (empty means none).
    public init(kind: String?, year: String?) throws(HeatmapRequestError) {
        self.init()
        if let kind, !kind.isEmpty {
            guard let value = TrackKind(rawValue: kind), value != .route else {
                throw .invalid(field: "kind", reason: "kind is ride, run or walk")
            }
            self.kind = value
        }
        if let year, !year.isEmpty {
            let value = try HeatmapRequest.number(year, field: "year", maximumDigits: 4)
            guard Self.years.contains(value) else {
                throw .invalid(field: "year", reason: "year is \(Self.years.lowerBound) to \(Self.years.upperBound)")
            }
            self.year = value
        }
    }

    /// The year a track is counted in: that of its start time as recorded (its own UTC offset), nil without one.
    public static func year(ofStartTime text: String?) -> Int? {
        guard let text, text.utf8.count >= 4, let year = Int(text.prefix(4)), years.contains(year) else { return nil }
        return year
    }
}

/// A heatmap request that cannot be served.
public enum HeatmapRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(field: String, reason: String)

    public var description: String {
        switch self {
        case .invalid(let field, let reason): "\(field): \(reason)"
        }
    }
}
