/// A short identifier that people can read aloud and type: 8 characters of Crockford base32, random.
///
///     let id = ShortID.random()          // e.g. "7K3MZQ0A"
///     ShortID("7k3m-zq0a") == id         // true: case, hyphens and look-alikes (I, L → 1, O → 0) are forgiven
///
/// Why this shape:
/// - 8 characters fit a command line and a URL and are typed without looking twice; Crockford's alphabet
///   leaves out I, L, O and U, so what is read aloud or mistyped still resolves to the same id.
/// - 40 random bits: ids do not reveal how many tracks exist or in which order they came, and they stay the
///   same across export, re-import on another machine (the store keeps them) and renames. With a million
///   ids the chance that a new one collides is one in a million; the store draws again when it does.
public struct ShortID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The 8 canonical characters (upper case, no hyphen).
    public let rawValue: String

    /// The 32 symbols, in value order.
    public static let alphabet: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// Characters in an id.
    public static let length = 8

    /// Reads an id as a person may have typed it: any case, with hyphens or spaces, `I`/`L` for 1 and `O`
    /// for 0. Nil when it is not 8 symbols of the alphabet.
    public init?(_ text: String) {
        var symbols: [UInt8] = []
        symbols.reserveCapacity(Self.length)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") { continue }
            guard let value = Self.value(of: byte) else { return nil }
            symbols.append(Self.alphabet[Int(value)])
            if symbols.count > Self.length { return nil }
        }
        guard symbols.count == Self.length else { return nil }
        rawValue = String(decoding: symbols, as: UTF8.self)
    }

    /// A new random id.
    public static func random() -> ShortID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new id drawn from `generator` (tests pass a seeded one).
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> ShortID {
        var bits = generator.next() as UInt64
        var symbols = [UInt8](repeating: 0, count: length)
        for index in 0..<length {
            symbols[index] = alphabet[Int(bits & 31)]
            bits >>= 5
        }
        return ShortID(canonical: String(decoding: symbols, as: UTF8.self))
    }

    private init(canonical: String) { rawValue = canonical }

    /// The value 0…31 of one typed character, or nil.
    static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return value(of: byte - 32)
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        case UInt8(ascii: "U"): return nil
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return UInt8(alphabet.firstIndex(of: byte)!)
        default: return nil
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: ShortID, rhs: ShortID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ShortID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
