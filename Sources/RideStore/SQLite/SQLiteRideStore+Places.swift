import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    public func createPlace(_ place: NewPlace, userID: UserID) async throws -> Place {
        try PlaceRules.validate(place)
        return try await write { db in
            try Self.requireUser(db, userID)
            let record = try Self.insertPlace(place, userID: userID, now: StoreClock.now(), db)
            return try Self.place(db, record)
        }
    }

    public func places(_ query: PlaceQuery, userID: UserID) async throws -> [Place] {
        let plan = PlaceListPlan(query)
        return try await read { db in
            var conditions = ["place.userId = ?", "place.deletedAt IS NULL"]
            var arguments: StatementArguments = [userID]
            if let pattern = plan.searchPattern {
                conditions.append(
                    "(place.name LIKE ? ESCAPE '\\' OR place.address LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM note WHERE note.placeId = place.id AND note.body LIKE ? ESCAPE '\\'))")
                _ = arguments.append(contentsOf: [pattern, pattern, pattern])
            }
            if let ids = plan.labelIDs {
                conditions.append(
                    "EXISTS (SELECT 1 FROM placeLabel WHERE placeLabel.placeId = place.id AND placeLabel.labelId IN (\(ids.map { _ in "?" }.joined(separator: ", "))))")
                _ = arguments.append(contentsOf: StatementArguments(ids))
            }
            var sql = "SELECT place.* FROM place WHERE \(conditions.joined(separator: " AND "))"
            switch plan.order {
            case .name: sql += " ORDER BY place.name COLLATE NOCASE, place.id LIMIT \(plan.limit) OFFSET \(plan.offset)"
            case .createdAt: sql += " ORDER BY place.createdAt DESC, place.id LIMIT \(plan.limit) OFFSET \(plan.offset)"
            case .distance: break
            }
            let records = plan.nearestFirst(
                try PlaceRecord.fetchAll(db, sql: sql, arguments: arguments), id: \.id,
                coordinate: { Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
            let labels = try Self.labels(db, placeIDs: records.map(\.id))
            return records.map { $0.place(labels: labels[$0.id] ?? []) }
        }
    }

    public func place(id: PlaceID, userID: UserID) async throws -> Place? {
        try await read { db in
            try Self.placeRecord(db, id: id, userID: userID).map { try Self.place(db, $0) }
        }
    }

    public func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges) async throws -> Place {
        try await write { db in
            guard var record = try Self.placeRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "place", id: id.rawValue)
            }
            if let name = changes.name { record.name = name }
            if let latitude = changes.latitude { record.latitude = latitude }
            if let longitude = changes.longitude { record.longitude = longitude }
            if let address = changes.address { record.address = address.isEmpty ? nil : address }
            try PlaceRules.validate(NewPlace(latitude: record.latitude, longitude: record.longitude, name: record.name))
            record.updatedAt = StoreClock.now()
            try record.update(db)
            return try Self.place(db, record)
        }
    }

    public func deletePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID] {
        try await write { db in
            let found = try PlaceRecord.select(PlaceRecord.Columns.id, as: PlaceID.self)
                .filter(keys: ids).filter(PlaceRecord.Columns.userId == userID && PlaceRecord.Columns.deletedAt == nil).fetchAll(db)
            try PlaceRecord.filter(keys: found).updateAll(db, PlaceRecord.Columns.deletedAt.set(to: StoreClock.milliseconds(StoreClock.now())))
            return ids.filter(found.contains)
        }
    }

    // MARK: Notes and photos

    public func notes(placeID: PlaceID, userID: UserID) async throws -> [PlaceNote] {
        try await read { db in
            guard try Self.placeRecord(db, id: placeID, userID: userID) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            let notes = try NoteRecord.filter(NoteRecord.Columns.placeId == placeID)
                .order(NoteRecord.Columns.createdAt, NoteRecord.Columns.id).fetchAll(db)
            let photos = try Self.photoInfos(db, placeID: placeID)
            return notes.map { Self.note($0, photos: photos[$0.id] ?? []) }
        }
    }

    public func addNote(placeID: PlaceID, body: String, userID: UserID) async throws -> PlaceNote {
        try await write { db in
            guard try Self.placeRecord(db, id: placeID, userID: userID) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            let now = StoreClock.now()
            let record = NoteRecord(id: try Self.freshID(db, table: "note"), placeId: placeID, body: body, createdAt: now, updatedAt: now)
            try record.insert(db)
            try Self.touchPlace(db, placeID, now)
            return Self.note(record, photos: [])
        }
    }

    public func updateNote(id: NoteID, body: String, userID: UserID) async throws -> PlaceNote {
        try await write { db in
            guard var record = try Self.noteRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "note", id: id.rawValue)
            }
            record.body = body
            record.updatedAt = StoreClock.now()
            try record.update(db)
            try Self.touchPlace(db, record.placeId, record.updatedAt)
            let photos = try Self.photoInfos(db, placeID: record.placeId)[id] ?? []
            return Self.note(record, photos: photos)
        }
    }

    // MARK: Labels

    public func labels(userID: UserID) async throws -> [PlaceLabel] {
        try await read { db in
            try LabelRecord.filter(LabelRecord.Columns.userId == userID).order(LabelRecord.Columns.name.collating(.nocase)).fetchAll(db).map(\.label)
        }
    }

    public func createLabel(name: String, color: String, userID: UserID) async throws -> PlaceLabel {
        let name = try LabelRules.name(name)
        let color = try LabelRules.color(color)
        return try await write { db in
            try Self.requireUser(db, userID)
            guard try LabelRecord.filter(LabelRecord.Columns.userId == userID && LabelRecord.Columns.name == name).fetchCount(db) == 0 else {
                throw LabelRules.nameTaken(name)
            }
            let record = LabelRecord(id: try Self.freshID(db, table: "label"), userId: userID, name: name, color: color)
            try record.insert(db)
            return record.label
        }
    }

    public func updateLabel(id: LabelID, name: String?, color: String?, userID: UserID) async throws -> PlaceLabel {
        let normalizedColor = try color.map(LabelRules.color)
        let cleanedName = try name.map(LabelRules.name)
        return try await write { db in
            guard var record = try LabelRecord.filter(key: id).filter(LabelRecord.Columns.userId == userID).fetchOne(db) else {
                throw RideStoreError.notFound(kind: "label", id: id.rawValue)
            }
            if let cleaned = cleanedName {
                if cleaned != record.name,
                    try LabelRecord.filter(LabelRecord.Columns.userId == userID && LabelRecord.Columns.name == cleaned).fetchCount(db) > 0
                {
                    throw LabelRules.nameTaken(cleaned)
                }
                record.name = cleaned
            }
            if let normalizedColor { record.color = normalizedColor }
            try record.update(db)
            return record.label
        }
    }

    public func deleteLabel(id: LabelID, userID: UserID) async throws -> Bool {
        try await write { db in
            try LabelRecord.filter(key: id).filter(LabelRecord.Columns.userId == userID).deleteAll(db) > 0
        }
    }

    public func setLabels(_ labelIDs: [LabelID], placeID: PlaceID, userID: UserID) async throws -> Place {
        try await write { db in
            guard var record = try Self.placeRecord(db, id: placeID, userID: userID) else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            try Self.attachLabels(labelIDs, placeID: placeID, userID: userID, replacing: true, db)
            record.updatedAt = StoreClock.now()
            try record.update(db)
            return try Self.place(db, record)
        }
    }

    // MARK: Helpers

    static func insertPlace(_ place: NewPlace, userID: UserID, now: Date, _ db: Database) throws -> PlaceRecord {
        let created = place.createdAt.map(StoreClock.rounded) ?? now
        let record = PlaceRecord(
            id: try freshID(db, table: "place"), userId: userID, latitude: place.latitude, longitude: place.longitude,
            name: place.name.trimmingCharacters(in: .whitespacesAndNewlines), address: place.address.flatMap { $0.isEmpty ? nil : $0 },
            createdAt: created, updatedAt: created)
        try record.insert(db)
        if let note = place.note, !note.isEmpty {
            try NoteRecord(id: try freshID(db, table: "note"), placeId: record.id, body: note, createdAt: created, updatedAt: created).insert(db)
        }
        try attachLabels(place.labelIDs, placeID: record.id, userID: userID, replacing: false, db)
        return record
    }

    static func attachLabels(_ labelIDs: [LabelID], placeID: PlaceID, userID: UserID, replacing: Bool, _ db: Database) throws {
        let unique = Array(Set(labelIDs))
        let owned = try LabelRecord.filter(keys: unique).filter(LabelRecord.Columns.userId == userID).fetchCount(db)
        guard owned == unique.count else {
            throw RideStoreError.notFound(kind: "label", id: unique.map(\.rawValue).sorted().joined(separator: ", "))
        }
        if replacing { try PlaceLabelRecord.filter(PlaceLabelRecord.Columns.placeId == placeID).deleteAll(db) }
        for labelID in unique { try PlaceLabelRecord(placeId: placeID, labelId: labelID).insert(db) }
    }

    /// The place, when it is the user's and not deleted.
    static func placeRecord(_ db: Database, id: PlaceID, userID: UserID) throws -> PlaceRecord? {
        try PlaceRecord.filter(key: id).filter(PlaceRecord.Columns.userId == userID && PlaceRecord.Columns.deletedAt == nil).fetchOne(db)
    }

    static func noteRecord(_ db: Database, id: NoteID, userID: UserID) throws -> NoteRecord? {
        try NoteRecord.fetchOne(
            db, sql: "SELECT note.* FROM note JOIN place ON place.id = note.placeId WHERE note.id = ? AND place.userId = ? AND place.deletedAt IS NULL",
            arguments: [id, userID])
    }

    static func touchPlace(_ db: Database, _ placeID: PlaceID, _ date: Date) throws {
        try PlaceRecord.filter(key: placeID).updateAll(db, Column("updatedAt").set(to: StoreClock.milliseconds(date)))
    }

    static func place(_ db: Database, _ record: PlaceRecord) throws -> Place {
        record.place(labels: try labels(db, placeIDs: [record.id])[record.id] ?? [])
    }

    static func labels(_ db: Database, placeIDs: [PlaceID]) throws -> [PlaceID: [PlaceLabel]] {
        guard !placeIDs.isEmpty else { return [:] }
        var result: [PlaceID: [PlaceLabel]] = [:]
        for chunk in stride(from: 0, to: placeIDs.count, by: 500).map({ placeIDs[$0..<min($0 + 500, placeIDs.count)] }) {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT placeLabel.placeId, label.id, label.name, label.color FROM placeLabel
                    JOIN label ON label.id = placeLabel.labelId
                    WHERE placeLabel.placeId IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))
                    ORDER BY label.name COLLATE NOCASE
                    """,
                arguments: StatementArguments(Array(chunk)))
            for row in rows {
                result[row[0] as PlaceID, default: []].append(PlaceLabel(id: row[1], name: row[2], color: row[3]))
            }
        }
        return result
    }

    static func note(_ record: NoteRecord, photos: [PhotoInfo]) -> PlaceNote {
        PlaceNote(id: record.id, placeID: record.placeId, body: record.body, createdAt: record.createdAt, updatedAt: record.updatedAt, photos: photos)
    }
}
