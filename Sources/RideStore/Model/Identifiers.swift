import RideKit

/// A user's id.
public typealias UserID = ShortID
/// A device's id (a phone app that posts points).
public typealias DeviceID = ShortID
/// A saved track's id: what `bikeride show`, `export` and the API take.
public typealias TrackID = ShortID
/// An import's id (one file, one transaction).
public typealias ImportID = ShortID
/// A recording's id.
public typealias RecordingID = ShortID
/// A place's id.
public typealias PlaceID = ShortID
/// A note's id.
public typealias NoteID = ShortID
/// A photo's id.
public typealias PhotoID = ShortID
/// A label's id.
public typealias LabelID = ShortID
