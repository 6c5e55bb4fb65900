import Foundation
import RideKit

/// The rules of a place label that both stores follow; each store checks that the name is free in its own SQL.
package enum LabelRules {
    /// A label's name as kept: on one line, trimmed, not empty.
    package static func name(_ name: String) throws -> String {
        let cleaned = TrackSummary.cleanedName(name)
        guard !cleaned.isEmpty else { throw RideStoreError.invalid(field: "name", reason: "a label needs a name") }
        return cleaned
    }

    /// A label's colour as kept: `#rrggbb`.
    package static func color(_ color: String) throws -> String {
        guard let normalized = PlaceLabel.normalizedColor(color) else {
            throw RideStoreError.invalid(field: "color", reason: "'\(color)' is not a colour of the form #RRGGBB")
        }
        return normalized
    }

    /// What a taken name says.
    package static func nameTaken(_ name: String) -> RideStoreError { .conflict("a label named '\(name)' exists") }
}
