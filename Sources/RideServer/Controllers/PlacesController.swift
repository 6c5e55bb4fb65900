import Foundation
import Hummingbird
import RideKit
import RideStore

/// `/api/places`: the Errands app's pins with their notes and labels (issue 10, DESIGN 2.5), through
/// `TrackLibrary`'s store. Every request is checked whole before anything is stored, so a refused request
/// leaves the store as it was.
///
/// `DELETE` hides a place (with its notes and photos) and `POST /api/places/{id}/restore` brings it back, for 30
/// days (`TrackLibrary.deletedPlaceRetentionSeconds`); places deleted longer ago are purged at the next delete.
struct PlacesController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    static var bodyLimitBytes: Int { 64 << 10 }
    /// The largest GPX file `POST /api/places/import` takes.
    static var importLimitBytes: Int { 16 << 20 }
    /// The most waypoints one import makes places of.
    static var importMaximumPlaces: Int { TrackLibrary.maximumImportedPlaces }
    static var defaultPageSize: Int { 100 }
    static var maximumPageSize: Int { 1000 }
    static var maximumNameLength: Int { 200 }
    static var maximumAddressLength: Int { 1000 }
    static var maximumNoteLength: Int { 20_000 }
    static var maximumLabelsPerPlace: Int { 100 }

    /// The routes under `api/places` and `GET /api/places.gpx`.
    func addRoutes(to router: Router<Context>) {
        router.get("api/places.gpx") { request, context in try await exportGPX(request, context) }
        let group = router.group("api/places")
        group.get { request, context in try await list(request, context) }
        group.post { request, context in try await create(request, context) }
        group.post("import") { request, context in try await importGPX(request, context) }
        group.get("{id}") { request, context in try await get(request, context) }
        group.patch("{id}") { request, context in try await update(request, context) }
        group.delete("{id}") { request, context in try await delete(request, context) }
        group.post("{id}/restore") { request, context in try await restore(request, context) }
        group.post("{id}/notes") { request, context in try await addNote(request, context) }
        group.patch("{id}/notes/{noteId}") { request, context in try await updateNote(request, context) }
        group.delete("{id}/notes/{noteId}") { request, context in try await deleteNote(request, context) }
    }

    // MARK: Places

    /// `GET /api/places?sort=distance|name|created&near=LAT,LON&label=ID&q=TEXT&cursor&limit`.
    ///
    /// `sort` is `distance` by default when `near` is given (then required), else `created` (newest first).
    /// The cursor is opaque to clients (the offset of the next page).
    func list(_ request: Request, _ context: Context) async throws -> PlacePagePayload {
        let library = try self.library.scoped(to: context)
        let parameters = request.uri.queryParameters
        var limit = Self.defaultPageSize
        if let text = parameters["limit"] {
            guard let value = Int(String(text)), (1...Self.maximumPageSize).contains(value) else {
                throw APIError.badRequest("invalid_value", "limit must be an integer from 1 to \(Self.maximumPageSize)")
            }
            limit = value
        }
        var offset = 0
        if let text = parameters["cursor"], !text.isEmpty {
            guard let value = Int(String(text)), value >= 0 else { throw APIError.badRequest("invalid_value", "cursor is not one this server gave") }
            offset = value
        }
        let near = try request.uri.formQueryValue("near").map(Self.coordinate(near:))
        let order: PlaceQuery.Order
        switch request.uri.formQueryValue("sort") ?? (near == nil ? "created" : "distance") {
        case "distance":
            guard let near else { throw APIError.badRequest("invalid_value", "sort=distance needs near=LAT,LON") }
            order = .distance(from: near)
        case "name": order = .name
        case "created": order = .createdAt
        case let other: throw APIError.badRequest("invalid_value", "sort must be distance, name or created, not '\(other)'")
        }
        var labelIDs: Set<LabelID>?
        if let text = request.uri.formQueryValue("label") {
            guard let id = LabelID(text) else { throw APIError.badRequest("invalid_value", "label '\(text)' is not a label id") }
            labelIDs = [id]
        }
        let search = request.uri.formQueryValue("q").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        // One more than the page says whether another page follows.
        let query = PlaceQuery(search: search, labelIDs: labelIDs, order: order, limit: limit + 1, offset: offset)
        let places = try await library.mine.places(query)
        let page = places.prefix(limit).map { place in
            PlacePayload(place, distanceMeters: near.map { $0.distanceMeters(to: place.coordinate) })
        }
        return PlacePagePayload(places: page, nextCursor: places.count > limit ? String(offset + limit) : nil)
    }

    /// `POST /api/places` `{name, latitude, longitude, address?, labels?}` → 201 with the place.
    func create(_ request: Request, _ context: Context) async throws -> EditedResponse<PlacePayload> {
        let library = try self.library.scoped(to: context)
        let body = try await Self.decode(NewPlaceRequest.self, request)
        let name = try Self.name(body.name)
        try Self.checkPosition(latitude: body.latitude, longitude: body.longitude)
        let address = try Self.address(body.address)
        let labels = try await labelIDs(body.labels ?? [], library)
        let place = try await library.mine.createPlace(
            NewPlace(latitude: body.latitude, longitude: body.longitude, name: name, address: address, labelIDs: labels))
        var headers = HTTPFields()
        headers[.location] = "/api/places/\(place.id.rawValue)"
        return EditedResponse(status: .created, headers: headers, response: PlacePayload(place, notes: []))
    }

    /// `GET /api/places/{id}`: the place with its notes (each with its photos) and labels.
    func get(_ request: Request, _ context: Context) async throws -> PlacePayload {
        let library = try self.library.scoped(to: context)
        return try await get(id: try context.parameters.require("id"), library)
    }

    func get(id text: String, _ library: TrackLibrary) async throws -> PlacePayload {
        let place = try await place(text, library)
        return PlacePayload(place, notes: try await library.mine.notes(placeID: place.id))
    }

    /// `PATCH /api/places/{id}`: any of the fields of `POST`; checked whole (labels included) before anything
    /// changes, then stored in one transaction.
    func update(_ request: Request, _ context: Context) async throws -> PlacePayload {
        let library = try self.library.scoped(to: context)
        let current = try await place(try context.parameters.require("id"), library)
        let body = try await Self.decode(PlaceChangesRequest.self, request)
        let name = try body.name.map(Self.name)
        try Self.checkPosition(latitude: body.latitude ?? current.latitude, longitude: body.longitude ?? current.longitude)
        // An empty address clears it (the store's `PlaceChanges`).
        let address = try body.address.map { try Self.address($0) ?? "" }
        var labels: [LabelID]?
        if let texts = body.labels { labels = try await labelIDs(texts, library) }
        // Fields and labels in one transaction: all of the change or none of it.
        let place = try await library.mine.updatePlace(
            id: current.id,
            PlaceChanges(name: name, latitude: body.latitude, longitude: body.longitude, address: address), labelIDs: labels)
        return PlacePayload(place, notes: try await library.mine.notes(placeID: place.id))
    }

    /// `DELETE /api/places/{id}`: hides the place, its notes and their photos until restored (or purged).
    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        let id = try Self.placeID(text)
        guard try await library.deletePlaces([id]) == [id] else {
            throw APIError.notFound("no place with id \(text)")
        }
        return Response(status: .noContent)
    }

    /// `POST /api/places/{id}/restore`: undoes a delete → the place with its notes. A place that is not deleted is
    /// 409 `not_deleted`; one never known, or purged, 404.
    func restore(_ request: Request, _ context: Context) async throws -> PlacePayload {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        let id = try Self.placeID(text)
        guard try await library.mine.restorePlaces(ids: [id]) == [id] else {
            if try await library.mine.place(id: id) != nil {
                throw APIError(.conflict, code: "not_deleted", message: "the place \(text) is not deleted; there is nothing to restore")
            }
            throw APIError.notFound("no deleted place with id \(text) (never known, or purged 30 days after its delete)")
        }
        return try await get(id: text, library)
    }

    // MARK: Notes

    /// `POST /api/places/{id}/notes` `{body}` → 201 with the note.
    func addNote(_ request: Request, _ context: Context) async throws -> EditedResponse<NotePayload> {
        let library = try self.library.scoped(to: context)
        let place = try await place(try context.parameters.require("id"), library)
        let body = try Self.noteBody(try await Self.decode(NoteRequest.self, request).body)
        let note = try await library.mine.addNote(placeID: place.id, body: body)
        return EditedResponse(status: .created, response: NotePayload(note))
    }

    /// `PATCH /api/places/{id}/notes/{noteId}` `{body}`.
    func updateNote(_ request: Request, _ context: Context) async throws -> NotePayload {
        let library = try self.library.scoped(to: context)
        let id = try await noteID(context)
        let body = try Self.noteBody(try await Self.decode(NoteRequest.self, request).body)
        return NotePayload(try await library.mine.updateNote(id: id, body: body))
    }

    /// `DELETE /api/places/{id}/notes/{noteId}`: the note and its photos.
    func deleteNote(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let id = try await noteID(context)
        guard try await library.mine.deleteNote(id: id) else { throw APIError.notFound("no note with id \(id)") }
        return Response(status: .noContent)
    }

    // MARK: GPX

    /// `GET /api/places.gpx?label=ID` or `?place=ID`: every place (or those with the label, or that one place, as its
    /// page downloads it) as a GPX 1.1 waypoint, its notes in `desc`, the address in `cmt`.
    func exportGPX(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        var ids: [PlaceID]?
        if let text = request.uri.formQueryValue("label") {
            guard let id = LabelID(text) else { throw APIError.badRequest("invalid_value", "label '\(text)' is not a label id") }
            let query = PlaceQuery(labelIDs: [id], order: .name, limit: .max)
            ids = try await library.mine.places(query).map(\.id)
        }
        if let text = request.uri.formQueryValue("place") {
            // Another user's place and one that never existed answer the same 404.
            guard let id = PlaceID(text), try await library.mine.place(id: id) != nil else {
                throw APIError.notFound("no place with id \(text.prefix(16))")
            }
            ids = [id]
        }
        let document = try await library.placesDocument(ids)
        var headers = HTTPFields()
        headers[.contentType] = "application/gpx+xml"
        headers[.contentDisposition] = "attachment; filename=\"places.gpx\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: GPXWriter.data(document, creator: document.creator))))
    }

    /// `POST /api/places/import`: the body is a GPX file; each waypoint becomes a place (name, `cmt` as the
    /// address, `desc` as a note). All of them or none: they are stored in one transaction.
    func importGPX(_ request: Request, _ context: Context) async throws -> EditedResponse<PlaceImportPayload> {
        let library = try self.library.scoped(to: context)
        // Over the limit, `collect` throws a 413 (`APIError(from:)` words it).
        let buffer = try await request.body.collect(upTo: Self.importLimitBytes)
        guard buffer.readableBytes > 0 else { throw APIError.badRequest("empty_body", "the body is empty; it must be a GPX file") }
        let document: GPXDocument
        do {
            document = try GPXReader.read(bytes: Array(buffer.readableBytesView))
        } catch {
            throw APIError(.unprocessableContent, code: "invalid_file", message: "the body is not a GPX file that can be read: \(error)")
        }
        guard !document.waypoints.isEmpty else {
            throw APIError(.unprocessableContent, code: "no_waypoints", message: "the file has no waypoints (wpt); nothing was stored")
        }
        guard document.waypoints.count <= Self.importMaximumPlaces else {
            throw APIError(.unprocessableContent, code: "too_many_waypoints", message: "the file has more than \(Self.importMaximumPlaces) waypoints; nothing was stored")
        }
        // One transaction: a place that cannot be stored leaves nothing of the file.
        let made = try await library.importPlaces(from: document)
        return EditedResponse(status: .created, response: PlaceImportPayload(places: made.map { PlacePayload($0) }))
    }

    // MARK: Helpers

    static func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        guard let body = try await request.decodeJSON(T.self, limit: bodyLimitBytes) else {
            throw APIError.badRequest("bad_json", "the body is empty; it must be JSON")
        }
        return body
    }

    static func placeID(_ text: String) throws -> PlaceID {
        guard let id = PlaceID(text) else { throw APIError.notFound("no place with id \(text)") }
        return id
    }

    /// The place, or a 404.
    func place(_ text: String, _ library: TrackLibrary) async throws -> Place {
        guard let place = try await library.mine.place(id: try Self.placeID(text)) else {
            throw APIError.notFound("no place with id \(text)")
        }
        return place
    }

    /// The note `{noteId}` of the place `{id}`, or a 404 (a note of another place too).
    func noteID(_ context: Context) async throws -> NoteID {
        let library = try self.library.scoped(to: context)
        let place = try await place(try context.parameters.require("id"), library)
        let text = try context.parameters.require("noteId")
        guard let id = NoteID(text),
              try await library.mine.notes(placeID: place.id).contains(where: { $0.id == id })
        else { throw APIError.notFound("no note with id \(text) on this place") }
        return id
    }

    /// The labels as ids of the user's labels; an unknown one refuses the request.
    func labelIDs(_ texts: [String], _ library: TrackLibrary) async throws -> [LabelID] {
        guard texts.count <= Self.maximumLabelsPerPlace else {
            throw APIError.badRequest("invalid_value", "a place carries at most \(Self.maximumLabelsPerPlace) labels")
        }
        guard !texts.isEmpty else { return [] }
        let known = Set(try await library.mine.labels().map(\.id))
        return try texts.map { text in
            guard let id = LabelID(text), known.contains(id) else {
                throw APIError(.unprocessableContent, code: "unknown_label", message: "labels: there is no label with id \(text)")
            }
            return id
        }
    }

    static func name(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("invalid_value", "name must not be empty") }
        guard name.count <= maximumNameLength else {
            throw APIError.badRequest("invalid_value", "name is longer than \(maximumNameLength) characters")
        }
        return name
    }

    /// The address trimmed; nil when absent or blank.
    static func address(_ text: String?) throws -> String? {
        guard let address = text?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty else { return nil }
        guard address.count <= maximumAddressLength else {
            throw APIError.badRequest("invalid_value", "address is longer than \(maximumAddressLength) characters")
        }
        return address
    }

    static func noteBody(_ text: String) throws -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.badRequest("invalid_value", "body must not be empty")
        }
        guard text.count <= maximumNoteLength else {
            throw APIError.badRequest("invalid_value", "body is longer than \(maximumNoteLength) characters")
        }
        return text
    }

    static func checkPosition(latitude: Double, longitude: Double) throws {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw APIError.badRequest("invalid_value", "latitude must be a number from -90 to 90, not \(latitude)")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw APIError.badRequest("invalid_value", "longitude must be a number from -180 to 180, not \(longitude)")
        }
    }

    /// `near=LAT,LON`.
    static func coordinate(near text: String) throws -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1],
              latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { throw APIError.badRequest("invalid_value", "near must be LAT,LON in degrees (latitude -90…90, longitude -180…180)") }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
