import Crypto
import CryptoExtras
import Foundation

/// Passwords as slow, salted hashes: scrypt (RFC 7914) through swift-crypto's `CryptoExtras` (BoringSSL's
/// `EVP_PBE_scrypt`), which the package already depends on for SHA-256, so no new package is needed.
///
/// scrypt rather than bcrypt: it is memory-hard (a GPU or ASIC attacker pays for memory as well as time),
/// has no 72-byte password limit, and comes from a maintained library already in the graph. The hash is
/// written as `$scrypt$ln=17,r=8,p=1$SALT$HASH` (base64, no padding), so the cost can be raised later and
/// old hashes still verify. The defaults follow OWASP's Password Storage Cheat Sheet (N = 2^17, r = 8,
/// p = 1: 128 MiB and about a quarter of a second here); the tests use a cheaper cost.
///
/// Hashing is CPU-bound and blocking: call `hash`/`verify` off the event loop (the server runs them on a
/// dispatch queue, at most two at a time).
public struct PasswordHasher: Sendable, Hashable {
    /// log2 of scrypt's N (CPU and memory cost).
    public var logRounds: Int
    public var blockSize: Int
    public var parallelism: Int

    /// The longest password taken (bytes): enough for any passphrase, bounded so that hashing stays cheap to refuse.
    public static let maximumPasswordBytes = 1024
    /// The shortest password taken when one is set.
    public static let minimumPasswordCharacters = 8

    public init(logRounds: Int = 17, blockSize: Int = 8, parallelism: Int = 1) {
        self.logRounds = logRounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// Cheap parameters for tests (N = 2^10): never for real passwords.
    public static let forTesting = PasswordHasher(logRounds: 10)

    /// Why a new password is refused, or nil when it is acceptable.
    public static func problem(with password: String) -> String? {
        if password.count < minimumPasswordCharacters { return "a password needs at least \(minimumPasswordCharacters) characters" }
        if password.utf8.count > maximumPasswordBytes { return "a password may have at most \(maximumPasswordBytes) bytes" }
        return nil
    }

    /// A new hash with a fresh 16-byte salt.
    public func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let key = try Self.derive(password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        return "$scrypt$ln=\(logRounds),r=\(blockSize),p=\(parallelism)$\(Self.base64(salt))$\(Self.base64(key))"
    }

    /// True when `password` gives `encoded` (made by `hash`, with whatever cost it was made with). A malformed
    /// hash, or one asking for an absurd cost, is false, never a crash.
    public static func verify(_ password: String, against encoded: String) -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return false }
        var parameters: [Substring: Int] = [:]
        for item in parts[2].split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Int(pair[1]) else { return false }
            parameters[pair[0]] = value
        }
        guard let logRounds = parameters["ln"], let blockSize = parameters["r"], let parallelism = parameters["p"],
              (1...22).contains(logRounds), (1...32).contains(blockSize), (1...16).contains(parallelism),
              let salt = Data(base64Encoded: padded(parts[3])), let expected = Data(base64Encoded: padded(parts[4])),
              !salt.isEmpty, (16...64).contains(expected.count),
              let key = try? derive(password, salt: Array(salt), logRounds: logRounds, blockSize: blockSize, parallelism: parallelism, length: expected.count)
        else { return false }
        // Constant time in the length: no early exit on the first difference.
        var difference: UInt8 = 0
        for (a, b) in zip(key, expected) { difference |= a ^ b }
        return difference == 0
    }

    static func derive(_ password: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int, length: Int = 32) throws -> [UInt8] {
        // BoringSSL's wrapper needs a non-empty buffer: an empty password is hashed as one zero byte (an empty
        // password is never accepted as a new one, and its hash cannot equal a real password's).
        var bytes = Array(password.utf8.prefix(maximumPasswordBytes))
        if bytes.isEmpty { bytes = [0] }
        let key = try KDF.Scrypt.deriveKey(
            from: bytes, salt: salt, outputByteCount: length, rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }

    static func base64(_ bytes: [UInt8]) -> String {
        String(Data(bytes).base64EncodedString().prefix { $0 != "=" })
    }

    static func padded(_ text: Substring) -> String {
        let text = String(text)
        return text + String(repeating: "=", count: (4 - text.count % 4) % 4)
    }
}
