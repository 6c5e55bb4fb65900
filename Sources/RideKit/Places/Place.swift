import Foundation

/// A pin on the map that the user keeps: an errand, a shop, a meeting point (DESIGN 2.5).
///
/// Notes and their photos are fetched apart (`PlaceNote`), so that the list of places stays light; labels come
/// with the place because the list shows and filters by them.
public struct Place: Sendable, Hashable, Identifiable {
    public var id: PlaceID
    public var latitude: Double
    public var longitude: Double
    public var name: String
    /// A postal address, as the user typed or searched it.
    public var address: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// The labels the place carries, by name.
    public var labels: [PlaceLabel]

    public init(
        id: PlaceID, latitude: Double, longitude: Double, name: String, address: String? = nil,
        createdAt: Date, updatedAt: Date, labels: [PlaceLabel] = []
    ) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.address = address
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.labels = labels
    }

    /// The place's position.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

/// A note on a place; a place has several, each editable, each with its photos.
public struct PlaceNote: Sendable, Hashable, Identifiable {
    public var id: NoteID
    public var placeID: PlaceID
    public var body: String
    public var createdAt: Date
    public var updatedAt: Date
    /// What is known of the note's photos; their bytes are fetched one by one.
    public var photos: [PhotoInfo]

    public init(id: NoteID, placeID: PlaceID, body: String, createdAt: Date, updatedAt: Date, photos: [PhotoInfo] = []) {
        self.id = id
        self.placeID = placeID
        self.body = body
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.photos = photos
    }
}

/// A label (name and colour) that organises places; a place can carry several, a label many places.
public struct PlaceLabel: Sendable, Hashable, Identifiable {
    public var id: LabelID
    public var name: String
    /// `#RRGGBB`, upper case.
    public var color: String

    public init(id: LabelID, name: String, color: String) {
        self.id = id
        self.name = name
        self.color = color
    }

    /// The colour as `#RRGGBB` in upper case, or nil when `text` is not a six-digit hex colour (with or
    /// without `#`).
    ///
    ///     PlaceLabel.normalizedColor("3a7bd5")  // "#3A7BD5"
    public static func normalizedColor(_ text: String) -> String? {
        var hex = Substring(text.trimmingCharacters(in: .whitespaces))
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.utf8.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        return "#" + hex.uppercased()
    }
}

/// What is known of a photo without its bytes.
public struct PhotoInfo: Sendable, Hashable, Identifiable {
    public var id: PhotoID
    public var noteID: NoteID
    /// `image/jpeg`, `image/png`, `image/heic` …
    public var mediaType: String
    public var byteCount: Int
    public var createdAt: Date
    /// True when a small copy for lists is kept (the JPEG's own EXIF thumbnail, or one the browser made).
    public var hasThumbnail: Bool

    public init(id: PhotoID, noteID: NoteID, mediaType: String, byteCount: Int, createdAt: Date, hasThumbnail: Bool = false) {
        self.id = id
        self.noteID = noteID
        self.mediaType = mediaType
        self.byteCount = byteCount
        self.createdAt = createdAt
        self.hasThumbnail = hasThumbnail
    }
}
