import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    public func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges, labelIDs: [LabelID]?) async throws -> Place {
        try await write { db in
            guard var record = try Self.placeRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "place", id: id.rawValue)
            }
            if let name = changes.name { record.name = name.trimmingCharacters(in: .whitespacesAndNewlines) }
            if let latitude = changes.latitude { record.latitude = latitude }
            if let longitude = changes.longitude { record.longitude = longitude }
            if let address = changes.address { record.address = address.isEmpty ? nil : address }
            try PlaceRules.validate(NewPlace(latitude: record.latitude, longitude: record.longitude, name: record.name))
            if let labelIDs { try Self.attachLabels(labelIDs, placeID: id, userID: userID, replacing: true, db) }
            record.updatedAt = StoreClock.now()
            try record.update(db)
            return try Self.place(db, record)
        }
    }
}
