import Foundation
import Hummingbird
import RideKit
import RideStore

// The JSON of the places API (issue 10, DESIGN 2.5): the server's own shapes of the store's `Place`,
// `PlaceNote`, `PlaceLabel` and `PhotoInfo`. Dates are RFC 3339 in UTC; a label's colour is `colour`,
// `#RRGGBB`.

/// `POST /api/places` body.
struct NewPlaceRequest: Decodable {
    var name: String
    var latitude: Double
    var longitude: Double
    var address: String?
    var labels: [String]?
}

/// `PATCH /api/places/{id}` body: every field optional; `labels` replaces the set, an empty `address` clears it.
struct PlaceChangesRequest: Decodable {
    var name: String?
    var latitude: Double?
    var longitude: Double?
    var address: String?
    var labels: [String]?
}

/// `POST /api/places/{id}/notes` and `PATCH …/notes/{noteId}` body.
struct NoteRequest: Decodable {
    var body: String
}

/// `POST /api/labels` body.
struct NewLabelRequest: Decodable {
    var name: String
    var colour: String
}

/// `PATCH /api/labels/{id}` body.
struct LabelChangesRequest: Decodable {
    var name: String?
    var colour: String?
}

/// A label: `{id, name, colour}`.
struct LabelPayload: ResponseEncodable {
    var id: String
    var name: String
    var colour: String

    init(_ label: PlaceLabel) {
        id = label.id.rawValue
        name = label.name
        colour = label.color
    }
}

/// `GET /api/labels`.
struct LabelListPayload: ResponseEncodable {
    var labels: [LabelPayload]
}

/// What is known of a photo, and where its bytes are: `url` the photo, `thumbnailUrl` a small copy for lists (the
/// photo itself while it has none: `hasThumbnail` false, and the web app may `PUT` one there).
struct PhotoPayload: ResponseEncodable {
    var id: String
    var url: String
    var thumbnailUrl: String
    var hasThumbnail: Bool
    var mediaType: String
    var byteCount: Int
    var createdAt: String

    init(_ photo: PhotoInfo, placeID: PlaceID) {
        id = photo.id.rawValue
        url = "/api/places/\(placeID.rawValue)/notes/\(photo.noteID.rawValue)/photos/\(photo.id.rawValue)"
        thumbnailUrl = url + "/thumbnail"
        hasThumbnail = photo.hasThumbnail
        mediaType = photo.mediaType
        byteCount = photo.byteCount
        createdAt = GPXTime(date: photo.createdAt).rfc3339
    }
}

/// A note with its photos.
struct NotePayload: ResponseEncodable {
    var id: String
    var body: String
    var createdAt: String
    var updatedAt: String
    var photos: [PhotoPayload]

    init(_ note: PlaceNote) {
        id = note.id.rawValue
        body = note.body
        createdAt = GPXTime(date: note.createdAt).rfc3339
        updatedAt = GPXTime(date: note.updatedAt).rfc3339
        photos = note.photos.map { PhotoPayload($0, placeID: note.placeID) }
    }
}

/// A place: a row of the list (with `distanceMeters` when the list was asked `near` a position), or the
/// details (with `notes`).
struct PlacePayload: ResponseEncodable {
    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    var address: String?
    var labels: [LabelPayload]
    var createdAt: String
    var updatedAt: String
    var distanceMeters: Double?
    var notes: [NotePayload]?

    init(_ place: Place, distanceMeters: Double? = nil, notes: [PlaceNote]? = nil) {
        id = place.id.rawValue
        name = place.name
        latitude = place.latitude
        longitude = place.longitude
        address = place.address
        labels = place.labels.map(LabelPayload.init)
        createdAt = GPXTime(date: place.createdAt).rfc3339
        updatedAt = GPXTime(date: place.updatedAt).rfc3339
        self.distanceMeters = distanceMeters
        self.notes = notes.map { $0.map(NotePayload.init) }
    }
}

/// A page of the list; `nextCursor` asks for the next one, absent on the last page.
struct PlacePagePayload: ResponseEncodable {
    var places: [PlacePayload]
    var nextCursor: String?
}

/// The places a GPX import made.
struct PlaceImportPayload: ResponseEncodable {
    var places: [PlacePayload]
}
