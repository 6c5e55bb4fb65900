import Crypto
import Foundation

/// The random secrets the server hands out — session cookies and device tokens — and the one way they are
/// stored: SHA-256, lower-case hex.
///
/// A token is 256 bits from the operating system's generator, so a fast hash is right for it: nobody can
/// guess their way to a preimage, and a database leak gives no usable token. (A slow hash is for passwords,
/// which people choose.)
public enum SecretToken {
    /// 255 random bits, base64url without padding: 43 characters of `A–Z a–z 0–9 - _`, the first one a letter.
    ///
    /// The first byte's top bit is cleared so that the first character is `A`–`f`, never `-`: a token is also
    /// an argument on the command line (`bikeride places share TOKEN --revoke`), where a leading `-` reads as an
    /// option (one token in 64 did).
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[0] &= 0x7F
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What the store keeps of a token.
    public static func hash(_ token: String) -> String {
        // Hex by table: `String(format: "%02x")` per byte cost more than the hash (seen in profiles of device posts).
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// True for something that could be a token this server made (checked before any lookup; bounded length).
    public static func isPlausible(_ token: String) -> Bool {
        (16...128).contains(token.utf8.count) && token.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
