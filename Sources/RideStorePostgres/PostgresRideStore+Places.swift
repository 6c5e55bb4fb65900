import Foundation
import PostgresNIO
import RideKit
import RideStore

// Places, notes, labels and place share links on PostgreSQL: the `RideStore` interface's semantics, the rules of
// `PlaceRules` (RideStore's Core/), this store's SQL. A note lists its photos (`PostgresRideStore+Photos`).
extension PostgresRideStore {
    public func createPlace(_ place: NewPlace, userID: UserID) async throws -> Place {
        try PlaceRules.validate(place)
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            let id = try await Self.insertPlace(place, userID: userID, now: Self.now(), connection, logger: logger)
            return try await Self.requirePlace(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func createPlaces(_ places: [NewPlace], userID: UserID) async throws -> [Place] {
        for place in places { try PlaceRules.validate(place) }
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            let now = Self.now()
            var ids: [PlaceID] = []
            for place in places { ids.append(try await Self.insertPlace(place, userID: userID, now: now, connection, logger: logger)) }
            let byID = Dictionary(
                uniqueKeysWithValues: try await Self.places(connection, where: "id = ANY($1)", [ids.map(\.rawValue)], logger: logger).map { ($0.id, $0) })
            return ids.compactMap { byID[$0] }
        }
    }

    public func places(_ query: PlaceQuery, userID: UserID) async throws -> [Place] {
        let plan = PlaceListPlan(query)
        var binds = PostgresBindings()
        func parameter(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
            try binds.append(value)
            return "$\(binds.count)"
        }
        var conditions = ["user_id = \(try parameter(userID.rawValue))", "deleted_at IS NULL"]
        if let search = plan.searchPattern {
            let pattern = try parameter(search)
            conditions.append(
                """
                (\(Self.asciiLower("name")) LIKE \(pattern) ESCAPE '\\' OR \(Self.asciiLower("address")) LIKE \(pattern) ESCAPE '\\'
                 OR EXISTS (SELECT 1 FROM notes WHERE notes.place_id = places.id AND \(Self.asciiLower("notes.body")) LIKE \(pattern) ESCAPE '\\'))
                """)
        }
        if let labels = plan.labelIDs {
            conditions.append(
                "EXISTS (SELECT 1 FROM place_labels WHERE place_labels.place_id = places.id AND place_labels.label_id = ANY(\(try parameter(labels))))")
        }
        var sql = "WHERE \(conditions.joined(separator: " AND "))"
        let page = "LIMIT \(try parameter(Int64(plan.limit))) OFFSET \(try parameter(Int64(plan.offset)))"
        switch plan.order {
        // As SQLite's NOCASE, then the id: by bytes ("C"), whatever the database's locale.
        case .name: sql += #" ORDER BY \#(Self.asciiLower("name")) COLLATE "C", id COLLATE "C" \#(page)"#
        case .createdAt: sql += #" ORDER BY created_at DESC, id COLLATE "C" \#(page)"#
        case .distance: break
        }
        let statement = sql
        let bindings = binds
        return try await transaction(readOnly: true) { [logger] connection in
            plan.nearestFirst(
                try await Self.places(connection, where: statement, bindings, logger: logger), id: \.id,
                coordinate: { Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
        }
    }

    public func place(id: PlaceID, userID: UserID) async throws -> Place? {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.place(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges) async throws -> Place {
        try await updatePlace(id: id, userID: userID, changes, labelIDs: nil, trimsName: false)
    }

    public func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges, labelIDs: [LabelID]?) async throws -> Place {
        try await updatePlace(id: id, userID: userID, changes, labelIDs: labelIDs, trimsName: true)
    }

    /// Both `updatePlace`s, as SQLite's: the one with labels trims the new name, the other keeps it as given.
    func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges, labelIDs: [LabelID]?, trimsName: Bool) async throws -> Place {
        try await transaction { [logger] connection in
            guard var place = try await Self.place(connection, id: id, userID: userID, forUpdate: true, logger: logger) else {
                throw RideStoreError.notFound(kind: "place", id: id.rawValue)
            }
            if let name = changes.name { place.name = trimsName ? name.trimmingCharacters(in: .whitespacesAndNewlines) : name }
            if let latitude = changes.latitude { place.latitude = latitude }
            if let longitude = changes.longitude { place.longitude = longitude }
            if let address = changes.address { place.address = address.isEmpty ? nil : address }
            try PlaceRules.validate(NewPlace(latitude: place.latitude, longitude: place.longitude, name: place.name))
            if let labelIDs { try await Self.attachLabels(labelIDs, placeID: id, userID: userID, replacing: true, connection, logger: logger) }
            try await connection.query(
                """
                UPDATE places SET name = \(place.name), latitude = \(place.latitude), longitude = \(place.longitude), address = \(place.address),
                    updated_at = \(Self.milliseconds(Self.now()))
                WHERE id = \(id.rawValue)
                """, logger: logger)
            return try await Self.requirePlace(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func deletePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID] {
        try await setPlacesDeleted(ids: ids, userID: userID, deleted: true)
    }

    public func restorePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID] {
        try await setPlacesDeleted(ids: ids, userID: userID, deleted: false)
    }

    /// Deletes (undo stays possible) or restores the user's places; returns those changed, in the order asked.
    func setPlacesDeleted(ids: [PlaceID], userID: UserID, deleted: Bool) async throws -> [PlaceID] {
        let keys = ids.map(\.rawValue)
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                UPDATE places SET deleted_at = \(deleted ? Self.milliseconds(Self.now()) : nil)
                WHERE id = ANY(\(keys)) AND user_id = \(userID.rawValue) AND (deleted_at IS NULL) = \(deleted) RETURNING id
                """, logger: logger)
            var found = Set<String>()
            for try await id in rows.decode(String.self) { found.insert(id) }
            return ids.filter { found.contains($0.rawValue) }
        }
    }

    public func purgeDeletedPlaces(deletedBefore date: Date) async throws -> [PlaceID] {
        try await transaction { [logger] connection in
            // Notes with their photos (and the photos' bytes), labels carried and share links' targets go with their
            // place (ON DELETE CASCADE; a link whose place is gone shows nothing).
            let rows = try await connection.query(
                "DELETE FROM places WHERE deleted_at IS NOT NULL AND deleted_at < \(Self.milliseconds(date)) RETURNING id", logger: logger)
            var ids: [PlaceID] = []
            for try await id in rows.decode(String.self) { ids.append(try Self.shortID(id, column: "places.id")) }
            return ids
        }
    }

    // MARK: Notes

    public func notes(placeID: PlaceID, userID: UserID) async throws -> [PlaceNote] {
        try await transaction(readOnly: true) { [logger] connection in
            guard try await Self.place(connection, id: placeID, userID: userID, logger: logger) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            let notes = try await Self.notes(
                connection.query(
                    #"SELECT id, place_id, body, created_at, updated_at FROM notes WHERE place_id = \#(placeID.rawValue) ORDER BY created_at, id COLLATE "C""#,
                    logger: logger))
            let photos = try await Self.photoInfos(connection, placeID: placeID, logger: logger)
            return notes.map { note in
                var note = note
                note.photos = photos[note.id] ?? []
                return note
            }
        }
    }

    public func addNote(placeID: PlaceID, body: String, userID: UserID) async throws -> PlaceNote {
        try await transaction { [logger] connection in
            guard try await Self.place(connection, id: placeID, userID: userID, forUpdate: true, logger: logger) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            let now = Self.now()
            let note = PlaceNote(id: .random(), placeID: placeID, body: body, createdAt: now, updatedAt: now)
            try await Self.insertNote(note, connection, logger: logger)
            try await Self.touchPlace(placeID, now, connection, logger: logger)
            return note
        }
    }

    public func updateNote(id: NoteID, body: String, userID: UserID) async throws -> PlaceNote {
        try await transaction { [logger] connection in
            guard var note = try await Self.note(connection, id: id, userID: userID, logger: logger) else {
                throw RideStoreError.notFound(kind: "note", id: id.rawValue)
            }
            note.body = body
            note.updatedAt = Self.now()
            try await connection.query(
                "UPDATE notes SET body = \(body), updated_at = \(Self.milliseconds(note.updatedAt)) WHERE id = \(id.rawValue)", logger: logger)
            try await Self.touchPlace(note.placeID, note.updatedAt, connection, logger: logger)
            note.photos = try await Self.photoInfos(connection, placeID: note.placeID, logger: logger)[id] ?? []
            return note
        }
    }

    public func deleteNote(id: NoteID, userID: UserID) async throws -> Bool {
        try await transaction { [logger] connection in
            guard let note = try await Self.note(connection, id: id, userID: userID, logger: logger) else { return false }
            // Its photos and their bytes go with it (ON DELETE CASCADE).
            try await connection.query("DELETE FROM notes WHERE id = \(id.rawValue)", logger: logger)
            try await Self.touchPlace(note.placeID, Self.now(), connection, logger: logger)
            return true
        }
    }

    // MARK: Labels

    public func labels(userID: UserID) async throws -> [PlaceLabel] {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.labels(
                connection.query(
                    #"SELECT id, name, color FROM labels WHERE user_id = \#(userID.rawValue) ORDER BY \#(unescaped: Self.labelOrder("labels"))"#,
                    logger: logger))
        }
    }

    public func createLabel(name: String, color: String, userID: UserID) async throws -> PlaceLabel {
        let name = try LabelRules.name(name)
        let color = try LabelRules.color(color)
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            let label = PlaceLabel(id: .random(), name: name, color: color)
            // The unique (user_id, name) decides, also between two instances making the same label at once.
            let rows = try await connection.query(
                """
                INSERT INTO labels (id, user_id, name, color) VALUES (\(label.id.rawValue), \(userID.rawValue), \(name), \(color))
                ON CONFLICT (user_id, name) DO NOTHING RETURNING id
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw LabelRules.nameTaken(name) }
            return label
        }
    }

    public func updateLabel(id: LabelID, name: String?, color: String?, userID: UserID) async throws -> PlaceLabel {
        let normalizedColor = try color.map(LabelRules.color)
        let cleanedName = try name.map(LabelRules.name)
        return try await transaction { [logger] connection in
            guard var label = try await Self.labels(
                connection.query(
                    "SELECT id, name, color FROM labels WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue) FOR UPDATE", logger: logger)
            ).first else { throw RideStoreError.notFound(kind: "label", id: id.rawValue) }
            if let cleaned = cleanedName {
                if cleaned != label.name {
                    let taken = try await connection.query(
                        "SELECT 1 FROM labels WHERE user_id = \(userID.rawValue) AND name = \(cleaned)", logger: logger)
                    guard try await taken.collect().isEmpty else { throw LabelRules.nameTaken(cleaned) }
                }
                label.name = cleaned
            }
            if let normalizedColor { label.color = normalizedColor }
            try await connection.query(
                "UPDATE labels SET name = \(label.name), color = \(label.color) WHERE id = \(id.rawValue)", logger: logger)
            return label
        }
    }

    public func deleteLabel(id: LabelID, userID: UserID) async throws -> Bool {
        try await transaction { [logger] connection in
            let rows = try await connection.query(
                "DELETE FROM labels WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue) RETURNING id", logger: logger)
            return try await rows.collect().count > 0
        }
    }

    public func setLabels(_ labelIDs: [LabelID], placeID: PlaceID, userID: UserID) async throws -> Place {
        try await transaction { [logger] connection in
            guard try await Self.place(connection, id: placeID, userID: userID, forUpdate: true, logger: logger) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            try await Self.attachLabels(labelIDs, placeID: placeID, userID: userID, replacing: true, connection, logger: logger)
            try await Self.touchPlace(placeID, Self.now(), connection, logger: logger)
            return try await Self.requirePlace(connection, id: placeID, userID: userID, logger: logger)
        }
    }

    // MARK: Share links of a place

    public func createShareLink(token: String, placeID: PlaceID, userID: UserID) async throws -> ShareLink {
        guard ShareLink.isWellFormed(token: token) else {
            throw RideStoreError.invalid(field: "token", reason: "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _")
        }
        return try await transaction { [logger] connection in
            guard try await Self.place(connection, id: placeID, userID: userID, logger: logger) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            let now = Self.now()
            let rows = try await connection.query(
                """
                INSERT INTO share_links (token, user_id, target_kind, target_id, created_at)
                VALUES (\(ShareLinkRules.storedToken(token)), \(userID.rawValue), 'place', \(placeID.rawValue), \(Self.milliseconds(now)))
                ON CONFLICT (token) DO NOTHING RETURNING token
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.conflict("the token is taken") }
            return ShareLink(token: token, userID: userID, placeID: placeID, createdAt: now)
        }
    }

    public func shareLink(token: String) async throws -> ShareLink? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await transaction(readOnly: true) { [logger] connection in
            // The link's row, and whether its place is still the owner's; whether it shows is ShareLinkRules'.
            let rows = try await connection.query(
                """
                SELECT share_links.user_id, share_links.target_id, share_links.created_at, share_links.target_kind, share_links.revoked_at,
                       places.id IS NOT NULL
                FROM share_links
                LEFT JOIN places ON places.id = share_links.target_id AND places.user_id = share_links.user_id AND places.deleted_at IS NULL
                WHERE share_links.token = \(ShareLinkRules.storedToken(token))
                """, logger: logger)
            var link: ShareLink?
            for try await (userID, placeID, createdAt, targetKind, revokedAt, placeIsTheOwners) in rows.decode(
                (String, String, Int64, String, Int64?, Bool).self)
            {
                guard ShareLinkRules.placeLinkShows(targetKind: targetKind, revokedAt: revokedAt.map(Self.date), placeIsTheOwners: placeIsTheOwners)
                else { continue }
                link = ShareLink(
                    token: token, userID: try Self.shortID(userID, column: "share_links.user_id"),
                    placeID: try Self.shortID(placeID, column: "share_links.target_id"), createdAt: Self.date(createdAt))
            }
            return link
        }
    }

    // MARK: Helpers

    /// Labels as SQLite's `name COLLATE NOCASE` orders them (then by id, so that equal names keep one order).
    static func labelOrder(_ table: String) -> String { asciiLower(table + ".name") + #" COLLATE "C", "# + table + #".id COLLATE "C""# }

    /// Inserts a place with its first note and labels; returns its id.
    static func insertPlace(_ place: NewPlace, userID: UserID, now: Date, _ connection: PostgresConnection, logger: Logger) async throws -> PlaceID {
        let created = place.createdAt.map(StoreClock.rounded) ?? now
        let id = PlaceID.random()
        try await connection.query(
            """
            INSERT INTO places (id, user_id, latitude, longitude, name, address, created_at, updated_at)
            VALUES (\(id.rawValue), \(userID.rawValue), \(place.latitude), \(place.longitude),
                    \(place.name.trimmingCharacters(in: .whitespacesAndNewlines)), \(place.address.flatMap { $0.isEmpty ? nil : $0 }),
                    \(milliseconds(created)), \(milliseconds(created)))
            """, logger: logger)
        if let note = place.note, !note.isEmpty {
            try await insertNote(
                PlaceNote(id: .random(), placeID: id, body: note, createdAt: created, updatedAt: created), connection, logger: logger)
        }
        try await attachLabels(place.labelIDs, placeID: id, userID: userID, replacing: false, connection, logger: logger)
        return id
    }

    static func insertNote(_ note: PlaceNote, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO notes (id, place_id, body, created_at, updated_at)
            VALUES (\(note.id.rawValue), \(note.placeID.rawValue), \(note.body), \(milliseconds(note.createdAt)), \(milliseconds(note.updatedAt)))
            """, logger: logger)
    }

    /// Sets (with `replacing`) or adds the labels a place carries; every one must be the user's.
    static func attachLabels(
        _ labelIDs: [LabelID], placeID: PlaceID, userID: UserID, replacing: Bool, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        let unique = Array(Set(labelIDs.map(\.rawValue))).sorted()
        let owned = try await connection.query(
            "SELECT count(*) FROM labels WHERE id = ANY(\(unique)) AND user_id = \(userID.rawValue)", logger: logger)
        var count: Int64 = 0
        for try await value in owned.decode(Int64.self) { count = value }
        guard count == unique.count else { throw RideStoreError.notFound(kind: "label", id: unique.joined(separator: ", ")) }
        if replacing { try await connection.query("DELETE FROM place_labels WHERE place_id = \(placeID.rawValue)", logger: logger) }
        if !unique.isEmpty {
            try await connection.query(
                "INSERT INTO place_labels (place_id, label_id) SELECT \(placeID.rawValue), unnest(\(unique)::text[])", logger: logger)
        }
    }

    static func touchPlace(_ placeID: PlaceID, _ date: Date, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("UPDATE places SET updated_at = \(milliseconds(date)) WHERE id = \(placeID.rawValue)", logger: logger)
    }

    /// The place, when it is the user's and not deleted; with `forUpdate`, locked until the transaction ends.
    static func place(
        _ connection: PostgresConnection, id: PlaceID, userID: UserID, forUpdate: Bool = false, logger: Logger
    ) async throws -> Place? {
        try await places(
            connection, where: "id = $1 AND user_id = $2 AND deleted_at IS NULL \(forUpdate ? "FOR UPDATE" : "")", [id.rawValue, userID.rawValue],
            logger: logger
        ).first
    }

    static func requirePlace(_ connection: PostgresConnection, id: PlaceID, userID: UserID, logger: Logger) async throws -> Place {
        guard let place = try await place(connection, id: id, userID: userID, logger: logger) else {
            throw RideStoreError.notFound(kind: "place", id: id.rawValue)
        }
        return place
    }

    static func places(_ connection: PostgresConnection, where clause: String, _ values: [String], logger: Logger) async throws -> [Place] {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return try await places(connection, where: "WHERE " + clause, binds, logger: logger)
    }

    static func places(_ connection: PostgresConnection, where clause: String, _ values: [[String]], logger: Logger) async throws -> [Place] {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return try await places(connection, where: "WHERE " + clause, binds, logger: logger)
    }

    /// The places a fixed SQL tail (`WHERE … ORDER BY …`, values bound) selects, each with its labels.
    static func places(_ connection: PostgresConnection, where tail: String, _ binds: PostgresBindings, logger: Logger) async throws -> [Place] {
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT id, latitude, longitude, name, address, created_at, updated_at FROM places \(tail)", binds: binds),
            logger: logger)
        var places: [Place] = []
        for try await (id, latitude, longitude, name, address, createdAt, updatedAt) in rows.decode(
            (String, Double, Double, String, String?, Int64, Int64).self)
        {
            places.append(
                Place(
                    id: try shortID(id, column: "places.id"), latitude: latitude, longitude: longitude, name: name, address: address,
                    createdAt: date(createdAt), updatedAt: date(updatedAt)))
        }
        guard !places.isEmpty else { return places }
        // Their labels in one query, by name as `labels(userID:)` lists them.
        let labelRows = try await connection.query(
            """
            SELECT place_labels.place_id, labels.id, labels.name, labels.color FROM place_labels JOIN labels ON labels.id = place_labels.label_id
            WHERE place_labels.place_id = ANY(\(places.map(\.id.rawValue)))
            ORDER BY \(unescaped: labelOrder("labels"))
            """, logger: logger)
        var labels: [String: [PlaceLabel]] = [:]
        for try await (placeID, id, name, color) in labelRows.decode((String, String, String, String).self) {
            labels[placeID, default: []].append(PlaceLabel(id: try shortID(id, column: "labels.id"), name: name, color: color))
        }
        for index in places.indices { places[index].labels = labels[places[index].id.rawValue] ?? [] }
        return places
    }

    static func labels(_ rows: PostgresRowSequence) async throws -> [PlaceLabel] {
        var labels: [PlaceLabel] = []
        for try await (id, name, color) in rows.decode((String, String, String).self) {
            labels.append(PlaceLabel(id: try shortID(id, column: "labels.id"), name: name, color: color))
        }
        return labels
    }

    /// The note, when its place is the user's and not deleted; locked until the transaction ends.
    static func note(_ connection: PostgresConnection, id: NoteID, userID: UserID, logger: Logger) async throws -> PlaceNote? {
        try await notes(
            connection.query(
                """
                SELECT notes.id, notes.place_id, notes.body, notes.created_at, notes.updated_at
                FROM notes JOIN places ON places.id = notes.place_id
                WHERE notes.id = \(id.rawValue) AND places.user_id = \(userID.rawValue) AND places.deleted_at IS NULL
                FOR UPDATE OF notes
                """, logger: logger)
        ).first
    }

    static func notes(_ rows: PostgresRowSequence) async throws -> [PlaceNote] {
        var notes: [PlaceNote] = []
        for try await (id, placeID, body, createdAt, updatedAt) in rows.decode((String, String, String, Int64, Int64).self) {
            notes.append(
                PlaceNote(
                    id: try shortID(id, column: "notes.id"), placeID: try shortID(placeID, column: "notes.place_id"), body: body,
                    createdAt: date(createdAt), updatedAt: date(updatedAt)))
        }
        return notes
    }
}
