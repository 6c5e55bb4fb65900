import Foundation
import RideKit

/// A recording's `Recorder.Options` as stored: JSON with named fields, so that an option added later reads
/// back from older rows with its default. The same text in both stores.
package struct RecordingOptionsRecord: Codable {
    var activity: String?
    var units: String?
    var breadcrumbsEnabled: Bool?
    var breadcrumbSpacingMeters: Double?
    var cameraRadiusMeters: Double?
    var maximumHorizontalAccuracyMeters: Double?

    init(_ options: Recorder.Options) {
        activity = options.activity.rawValue
        units = options.units.rawValue
        breadcrumbsEnabled = options.breadcrumbsEnabled
        breadcrumbSpacingMeters = options.breadcrumbSpacingMeters
        cameraRadiusMeters = options.cameraRadiusMeters
        maximumHorizontalAccuracyMeters = options.maximumHorizontalAccuracyMeters
    }

    /// The options, each missing or unknown value at its default.
    var options: Recorder.Options {
        var options = Recorder.Options()
        if let activity = activity.flatMap(ActivityKind.init(rawValue:)) { options.activity = activity }
        if let units = units.flatMap(UnitSystem.init(rawValue:)) { options.units = units }
        if let breadcrumbsEnabled { options.breadcrumbsEnabled = breadcrumbsEnabled }
        if let value = breadcrumbSpacingMeters, value.isFinite, value > 0 { options.breadcrumbSpacingMeters = value }
        if let value = cameraRadiusMeters, value.isFinite, value > 0 { options.cameraRadiusMeters = value }
        if let value = maximumHorizontalAccuracyMeters, value.isFinite, value > 0 { options.maximumHorizontalAccuracyMeters = value }
        return options
    }

    package static func encode(_ options: Recorder.Options?) -> String? {
        guard let options else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(RecordingOptionsRecord(options))).map { String(decoding: $0, as: UTF8.self) }
    }

    package static func decode(_ text: String?) -> Recorder.Options? {
        guard let text, let record = try? JSONDecoder().decode(RecordingOptionsRecord.self, from: Data(text.utf8)) else { return nil }
        return record.options
    }
}
