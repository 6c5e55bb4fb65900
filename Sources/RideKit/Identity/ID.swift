/// A `ShortID` that knows what it names: `ID<IDKind.Track>` and `ID<IDKind.Device>` are different types, so a
/// track's id cannot be passed where a device's is expected. The string form, the JSON form and the stored
/// form are the `ShortID`'s 8 characters; only the compiler sees the kind.
///
///     let track: TrackID = .random()
///     let device = DeviceID(track.shortID)   // a conversion between kinds is written out, never implicit
public struct ID<Kind>: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The untyped id.
    public let shortID: ShortID

    /// The id `shortID` taken as naming a `Kind` (say why at the call site: this is the one conversion).
    public init(_ shortID: ShortID) { self.shortID = shortID }

    /// Reads an id as a person may have typed it (see `ShortID.init?(_:)`).
    public init?(_ text: String) {
        guard let shortID = ShortID(text) else { return nil }
        self.shortID = shortID
    }

    /// The 8 canonical characters.
    public var rawValue: String { shortID.rawValue }

    public var description: String { shortID.rawValue }

    /// A new random id.
    public static func random() -> ID { ID(ShortID.random()) }

    /// A new id drawn from `generator` (tests pass a seeded one).
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> ID {
        ID(ShortID.random(using: &generator))
    }

    public static func < (lhs: ID, rhs: ID) -> Bool { lhs.shortID < rhs.shortID }

    public init(from decoder: any Decoder) throws { shortID = try ShortID(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try shortID.encode(to: encoder) }
}

/// The kind tags of `ID`: empty types that are never made.
public enum IDKind {
    public enum User {}
    public enum Device {}
    public enum Track {}
    public enum Import {}
    public enum ImportJob {}
    public enum Recording {}
    public enum Place {}
    public enum Note {}
    public enum Photo {}
    public enum Label {}
    public enum PrivacyZone {}
}

/// A place's id.
public typealias PlaceID = ID<IDKind.Place>
/// A note's id.
public typealias NoteID = ID<IDKind.Note>
/// A photo's id.
public typealias PhotoID = ID<IDKind.Photo>
/// A label's id.
public typealias LabelID = ID<IDKind.Label>
