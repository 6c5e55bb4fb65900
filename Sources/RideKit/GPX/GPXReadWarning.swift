import Foundation

/// One thing lenient reading left out, said for a rider ("latitude 95 is out of range"), with where it is.
///
/// Other apps (gpx.studio, Strava, Garmin Connect) import a file with one bad point and say nothing; bikeride
/// imports it too, and says what it left out. The line and column are the detail, the words come first.
public struct GPXReadWarning: Sendable, Hashable {
    /// What was left out.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case waypointSkipped, routePointSkipped, trackPointSkipped, valueDropped, elementSkipped, undeclaredPrefix
        /// A device's file (FIT) damaged from some byte on: what came before was read, the rest left out.
        case damageSkipped
    }

    public var kind: Kind
    /// Why, in plain words: "latitude 95 is out of range".
    public var detail: String
    /// 1-based line and column of the element in the file.
    public var line: Int
    public var column: Int

    public init(kind: Kind, detail: String, line: Int, column: Int) {
        self.kind = kind
        self.detail = detail
        self.line = line
        self.column = column
    }

    /// "1 waypoint skipped: latitude 95 is out of range" when `count` is 1, else
    /// "3 track points skipped, the first because latitude 95 is out of range".
    public static func sentence(kind: Kind, count: Int, firstDetail: String) -> String {
        let (one, many, done): (String, String, String) = switch kind {
        case .waypointSkipped: ("waypoint", "waypoints", "skipped")
        case .routePointSkipped: ("route point", "route points", "skipped")
        case .trackPointSkipped: ("track point", "track points", "skipped")
        case .valueDropped: ("value", "values", "left out")
        case .elementSkipped: ("unknown element", "unknown elements", "skipped")
        case .undeclaredPrefix: ("undeclared extension prefix", "undeclared extension prefixes", "read as usual")
        case .damageSkipped: ("damaged part", "damaged parts", "left out")
        }
        if count == 1 { return "1 \(one) \(done): \(firstDetail)" }
        return "\(count) \(many) \(done), the first because \(firstDetail)"
    }

    /// Why a point's position is unusable: "latitude 95 is out of range", "longitude 'abc' is not a number",
    /// "it has no latitude".
    static func positionDetail(_ reason: GPXError.Reason) -> String {
        switch reason {
        case .invalidCoordinate(let attribute, let value):
            let name = attribute == "lat" ? "latitude" : "longitude"
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if let number = Double(trimmed), number.isFinite { return "\(name) \(trimmed) is out of range" }
            return "\(name) '\(trimmed)' is not a number"
        case .missingAttribute(_, let attribute):
            return "it has no \(attribute == "lat" ? "latitude" : attribute == "lon" ? "longitude" : attribute)"
        default:
            return GPXError(reason, line: 0, column: 0).message
        }
    }
}

extension GPXReadReport {
    /// What a lenient read of a device's file left out (`DeviceActivity.warnings`), as a report.
    public init(deviceWarnings: [String]) {
        self.init()
        guard !deviceWarnings.isEmpty else { return }
        counts[.damageSkipped] = deviceWarnings.count
        warnings = deviceWarnings.prefix(Self.maximumLocatedWarnings).map { GPXReadWarning(kind: .damageSkipped, detail: $0, line: 0, column: 0) }
    }

    /// At most this many warnings keep their place in the file: finding a line costs a pass over the read
    /// buffer, so a file with a million bad points is still read in linear time (the counts stay exact).
    public static let maximumLocatedWarnings = 50

    /// One sentence a kind of thing left out, in the order of `GPXReadWarning.Kind`: what an import shows.
    public var sentences: [String] {
        GPXReadWarning.Kind.allCases.compactMap { kind in
            guard let count = counts[kind], count > 0 else { return nil }
            let detail = warnings.first { $0.kind == kind }?.detail ?? "it is not valid GPX"
            return GPXReadWarning.sentence(kind: kind, count: count, firstDetail: detail)
        }
    }
}
