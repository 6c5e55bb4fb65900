import Foundation
import GRDB
import RideKit

/// What every record of the SQLite store shares: Codable persistence with dates stored as milliseconds
/// since 1970 (an integer: sortable, compact, and read without a date formatter).
protocol StoreRecord: Codable, FetchableRecord, PersistableRecord {}

extension StoreRecord {
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }
}

extension Date {
    /// A date stored as milliseconds since 1970, read as `StoreRecord`'s `Decodable` path reads it.
    init(storeMilliseconds milliseconds: Double) {
        self.init(timeIntervalSince1970: milliseconds / 1000.0)
    }
}

/// Ids are stored as their 8 characters.
extension ShortID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> ShortID? {
        String.fromDatabaseValue(dbValue).flatMap(ShortID.init)
    }
}

/// A typed id is stored as its `ShortID`'s 8 characters.
extension ID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> ID? {
        String.fromDatabaseValue(dbValue).flatMap(ID.init)
    }
}

extension TrackKind: DatabaseValueConvertible {}
extension TrackSource: DatabaseValueConvertible {}
extension TrackState: DatabaseValueConvertible {}
extension RecordingState: DatabaseValueConvertible {}
