import RideKit

// Every id is an `ID<Kind>` (RideKit): one kind cannot be passed for another. Place, note, photo and label ids
// are declared beside `Place` in RideKit.

/// A user's id.
public typealias UserID = ID<IDKind.User>
/// A device's id (a phone app that posts points).
public typealias DeviceID = ID<IDKind.Device>
/// A saved track's id: what `bikeride show`, `export` and the API take.
public typealias TrackID = ID<IDKind.Track>
/// An import's id (one file, one transaction).
public typealias ImportID = ID<IDKind.Import>
/// A recording's id.
public typealias RecordingID = ID<IDKind.Recording>
