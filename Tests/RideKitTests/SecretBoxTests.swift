import Foundation
import Testing

@testable import RideKit

/// SecretBox against libsodium: boxes that PyNaCl's `crypto_secretbox_easy` made, Poly1305 tags from OpenSSL and
/// RFC 8439 (`Tests/vectors/secretbox-vectors.json`, written by `Tests/tools/make_secretbox_vectors.py`).
@Suite struct SecretBoxTests {
    struct BoxVector: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var key: Hex
        var nonce: Hex
        var message: Hex
        var box: Hex
        /// The OwnTracks secret the key derives from, for the vectors that have one.
        var secret: String?
        /// The `data` field of the body OwnTracks would send: base64 of the nonce followed by the box.
        var owntracksData: String?

        var testDescription: String { name }
    }

    struct TagVector: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var key: Hex
        var message: Hex
        var tag: Hex

        var testDescription: String { name }
    }

    struct Vectors: Decodable, Sendable {
        var secretbox: [BoxVector]
        var poly1305: [TagVector]
    }

    /// Bytes written as lowercase hexadecimal in the JSON.
    struct Hex: Decodable, Sendable {
        var bytes: [UInt8]

        init(from decoder: any Decoder) throws {
            let text = Array(try decoder.singleValueContainer().decode(String.self).utf8)
            guard text.count.isMultiple(of: 2) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "odd hex"))
            }
            bytes = try stride(from: 0, to: text.count, by: 2).map { index in
                guard let byte = UInt8(String(decoding: text[index..<index + 2], as: UTF8.self), radix: 16) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not hex"))
                }
                return byte
            }
        }
    }

    static let vectorsURL = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "vectors/secretbox-vectors.json")

    static func loadVectors() throws -> Vectors {
        try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: vectorsURL))
    }

    /// Empty when the file is missing: `vectorsAreAllThere` then fails, rather than the suite passing on nothing.
    static let vectors = (try? loadVectors()) ?? Vectors(secretbox: [], poly1305: [])

    @Test func vectorsAreAllThere() throws {
        let vectors = try Self.loadVectors()
        #expect(vectors.secretbox.count >= 16)
        #expect(vectors.poly1305.contains { $0.name == "rfc8439-2.5.2" })
        // Empty, shorter than a block, a block and either side of it, the 32 bytes of the first block, many blocks.
        let lengths = Set(vectors.secretbox.map(\.message.bytes.count))
        #expect(lengths.isSuperset(of: [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 1000, 5000]))
    }

    @Test(arguments: vectors.secretbox)
    func opensToTheMessageAndSealsToTheBox(_ vector: BoxVector) {
        #expect(SecretBox.open(vector.box.bytes, nonce: vector.nonce.bytes, key: vector.key.bytes) == vector.message.bytes)
        #expect(SecretBox.seal(vector.message.bytes, nonce: vector.nonce.bytes, key: vector.key.bytes) == vector.box.bytes)
    }

    @Test(arguments: vectors.secretbox)
    func aFlippedBitAnywhereInTagOrCiphertextIsRefused(_ vector: BoxVector) {
        let box = vector.box.bytes
        // Every bit of the tag, and one bit in every byte of the ciphertext (a different bit from byte to byte).
        let flips = (0..<128).map { (byte: $0 / 8, bit: $0 % 8) } + (16..<box.count).map { (byte: $0, bit: $0 % 8) }
        var opened: [Int] = []
        for flip in flips {
            var tampered = box
            tampered[flip.byte] ^= 1 << flip.bit
            if SecretBox.open(tampered, nonce: vector.nonce.bytes, key: vector.key.bytes) != nil { opened.append(flip.byte) }
        }
        #expect(opened.isEmpty, "bytes whose flipped bit still opened: \(opened)")
    }

    @Test(arguments: vectors.secretbox)
    func theWrongKeyOrNonceIsRefused(_ vector: BoxVector) {
        for index in [0, 17, 31] {
            var key = vector.key.bytes
            key[index] ^= 0x80
            #expect(SecretBox.open(vector.box.bytes, nonce: vector.nonce.bytes, key: key) == nil)
        }
        // Both halves of the nonce: the first 16 bytes go into HSalsa20, the last 8 into Salsa20.
        for index in [0, 15, 16, 23] {
            var nonce = vector.nonce.bytes
            nonce[index] ^= 1
            #expect(SecretBox.open(vector.box.bytes, nonce: nonce, key: vector.key.bytes) == nil)
        }
    }

    @Test func shortBoxesAndWrongSizesAreRefused() throws {
        let vector = try #require(Self.vectors.secretbox.first { $0.message.bytes.count == 17 })
        let (box, nonce, key) = (vector.box.bytes, vector.nonce.bytes, vector.key.bytes)
        for count in 0..<SecretBox.tagByteCount {
            #expect(SecretBox.open(Array(box.prefix(count)), nonce: nonce, key: key) == nil, "\(count) bytes")
        }
        // A box cut short by one byte, or with a byte too many, no longer matches its tag.
        #expect(SecretBox.open(Array(box.dropLast()), nonce: nonce, key: key) == nil)
        #expect(SecretBox.open(box + [0], nonce: nonce, key: key) == nil)
        #expect(SecretBox.open(box, nonce: Array(nonce.prefix(23)), key: key) == nil)
        #expect(SecretBox.open(box, nonce: nonce + [0], key: key) == nil)
        #expect(SecretBox.open(box, nonce: nonce, key: Array(key.prefix(31))) == nil)
        #expect(SecretBox.open(box, nonce: nonce, key: key + [0]) == nil)
    }

    @Test(arguments: vectors.secretbox.filter { $0.secret != nil })
    func anOwnTracksSecretGivesTheKeyAndItsDataOpens(_ vector: BoxVector) throws {
        let secret = try #require(vector.secret)
        #expect(SecretBox.key(fromSecret: secret) == vector.key.bytes)
        let base64 = try #require(vector.owntracksData)
        let data = try #require(Data(base64Encoded: base64))
        let nonce = Array(data.prefix(SecretBox.nonceByteCount)), box = Array(data.dropFirst(SecretBox.nonceByteCount))
        #expect(SecretBox.open(box, nonce: nonce, key: SecretBox.key(fromSecret: secret)) == vector.message.bytes)
    }

    @Test func anOwnTracksKeyIsTheSecretsUTF8BytesPaddedOrCutTo32() {
        #expect(SecretBox.key(fromSecret: "") == [UInt8](repeating: 0, count: 32))
        #expect(SecretBox.key(fromSecret: "ride-secret") == Array("ride-secret".utf8) + [UInt8](repeating: 0, count: 21))
        let exactly32 = String(repeating: "k", count: 32)
        #expect(SecretBox.key(fromSecret: exactly32) == Array(exactly32.utf8))
        #expect(SecretBox.key(fromSecret: exactly32 + "more") == Array(exactly32.utf8))
        // Cut at byte 32, inside the two bytes of "ü": bytes, not characters.
        #expect(SecretBox.key(fromSecret: String(repeating: "k", count: 31) + "ü") == Array(String(repeating: "k", count: 31).utf8) + [0xc3])
    }

    @Test(arguments: vectors.poly1305)
    func poly1305AloneMatchesRFC8439AndOpenSSL(_ vector: TagVector) {
        #expect(SecretBox.poly1305Tag(vector.message.bytes, key: vector.key.bytes) == vector.tag.bytes)
    }

    /// An encrypted OwnTracks post (the body the app sends with its Encryption key set) reads as the plain
    /// message inside it with the secret; without it, or with another, it is refused with the reason.
    @Test(arguments: vectors.secretbox.filter { $0.owntracksData != nil })
    func ownTracksEncryptedPostsOpenWithTheSecret(vector: BoxVector) throws {
        let secret = try #require(vector.secret)
        let body = Data(#"{"_type":"encrypted","data":"\#(try #require(vector.owntracksData))"}"#.utf8)
        let plain = try OwnTracksPayload.parse(Data(vector.message.bytes))
        let opened = try OwnTracksPayload.parse(body, secret: secret)
        #expect(opened.fixes == plain.fixes && opened.fixes.count == 1 && opened.rejected.isEmpty)
        #expect(try OwnTracksPayload.parse(body).rejected.map(\.reason) == [.encrypted])
        // Another secret (changed at its start: a secret is cut to 32 bytes, so a change after them is none).
        #expect(try OwnTracksPayload.parse(body, secret: "x" + secret).rejected.map(\.reason) == [.undecryptable])
        #expect(try OwnTracksPayload.parse(Data(#"{"_type":"encrypted","data":"bm90IGEgYm94"}"#.utf8), secret: secret).rejected.map(\.reason) == [.undecryptable])
        #expect(try OwnTracksPayload.parse(Data(#"{"_type":"encrypted"}"#.utf8), secret: secret).rejected.map(\.reason) == [.undecryptable])
    }
}

