import Foundation
import RideKit

/// The rules of a place that both stores follow.
package enum PlaceRules {
    /// A new place: a valid position and a name that is not blank.
    package static func validate(_ place: NewPlace) throws {
        guard place.latitude.isFinite, place.longitude.isFinite, Coordinate(latitude: place.latitude, longitude: place.longitude).isValid else {
            throw RideStoreError.invalid(field: "position", reason: "\(place.latitude), \(place.longitude) is not a valid coordinate")
        }
        guard !place.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw RideStoreError.invalid(field: "name", reason: "a place needs a name")
        }
    }
}
