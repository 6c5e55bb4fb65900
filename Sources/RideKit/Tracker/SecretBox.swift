import Foundation

/// NaCl's secretbox (XSalsa20 and Poly1305) laid out as libsodium's `crypto_secretbox_easy` writes it: the 16-byte
/// Poly1305 tag, then the ciphertext. OwnTracks encrypts its payloads with it (`{"_type":"encrypted","data":…}`, the
/// data being the nonce followed by the box).
///
/// ```swift
/// let key = SecretBox.key(fromSecret: "ride-secret")
/// let box = SecretBox.seal(Array("hello".utf8), nonce: nonce, key: key)   // 16 + 5 bytes
/// SecretBox.open(box, nonce: nonce, key: key)                              // the 5 bytes of "hello"
/// ```
///
/// Written from the specifications: Bernstein's "Salsa20 specification" (the core), "Extending the Salsa20 nonce"
/// (HSalsa20, XSalsa20) and "Cryptography in NaCl" (the box: the first 32 keystream bytes are the Poly1305 key, the
/// message is XORed with the rest), and RFC 8439 section 2.5 for Poly1305. Checked against libsodium's own boxes.
///
/// No branch or memory index depends on the key, the message or the tag, and the tag is compared in full before a
/// single result is given; only lengths, which are public, steer the code. O(n) in the box's length.
public enum SecretBox {
    /// 32: the key's length in bytes.
    public static let keyByteCount = 32
    /// 24: the nonce's length in bytes.
    public static let nonceByteCount = 24
    /// 16: the length of the Poly1305 tag in front of the ciphertext.
    public static let tagByteCount = 16

    /// The key the OwnTracks apps derive from the secret a user types: its UTF-8 bytes, cut at 32 bytes (even inside
    /// a character) or padded with zero bytes to 32.
    ///
    /// `key(fromSecret: "ride-secret")` is the 11 bytes of "ride-secret" followed by 21 zero bytes.
    public static func key(fromSecret secret: String) -> [UInt8] {
        // The Android app: `keyString.toByteArray().copyOf(32)`; the Recorder: a zeroed 32-byte buffer it copies into.
        var key = Array(secret.utf8.prefix(keyByteCount))
        key.append(contentsOf: repeatElement(0, count: keyByteCount - key.count))
        return key
    }

    /// The message in `boxed` (tag, then ciphertext), or nil when the tag does not verify or a size is wrong.
    public static func open(_ boxed: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard boxed.count >= tagByteCount, nonce.count == nonceByteCount, key.count == keyByteCount else { return nil }
        var stream = XSalsa20(key: key, nonce: nonce)
        let firstBlock = stream.nextBlock()
        return boxed.withUnsafeBytes { box -> [UInt8]? in
            let ciphertext = UnsafeRawBufferPointer(rebasing: box[tagByteCount...])
            let tag = Poly1305.authenticate(ciphertext, key: firstBlock.lowHalf)
            let expected = SIMD2<UInt64>(
                UInt64(littleEndian: box.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: box.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            // Every bit compared, then a single branch: the time does not tell how much of a forged tag was right.
            let difference = tag ^ expected
            guard difference[0] | difference[1] == 0 else { return nil }
            return [UInt8](unsafeUninitializedCapacity: ciphertext.count) { message, initializedCount in
                applyKeystream(ciphertext, to: UnsafeMutableRawBufferPointer(message), firstBlock: firstBlock, stream: &stream)
                initializedCount = ciphertext.count
            }
        }
    }

    /// `message` boxed: the 16-byte tag, then the ciphertext. Traps when the nonce or the key has the wrong size.
    ///
    /// A nonce must never be used twice with one key; bikeride only opens boxes, and seals them in its tests.
    public static func seal(_ message: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(nonce.count == nonceByteCount && key.count == keyByteCount, "a secretbox needs a 24-byte nonce and a 32-byte key")
        var stream = XSalsa20(key: key, nonce: nonce)
        let firstBlock = stream.nextBlock()
        return [UInt8](unsafeUninitializedCapacity: tagByteCount + message.count) { boxed, initializedCount in
            let box = UnsafeMutableRawBufferPointer(boxed)
            message.withUnsafeBytes { plain in
                applyKeystream(plain, to: UnsafeMutableRawBufferPointer(rebasing: box[tagByteCount...]), firstBlock: firstBlock, stream: &stream)
            }
            let tag = Poly1305.authenticate(UnsafeRawBufferPointer(rebasing: box[tagByteCount...]), key: firstBlock.lowHalf)
            box.storeBytes(of: tag[0].littleEndian, toByteOffset: 0, as: UInt64.self)
            box.storeBytes(of: tag[1].littleEndian, toByteOffset: 8, as: UInt64.self)
            initializedCount = tagByteCount + message.count
        }
    }

    /// Poly1305 alone (RFC 8439 section 2.5): the 16-byte tag of `message` under a 32-byte one-time key. For the tests.
    static func poly1305Tag(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == 32, "a Poly1305 key has 32 bytes")
        let keyWords = key.withUnsafeBytes { SIMD8<UInt32>(littleEndianWordsOf: $0) }
        let tag = message.withUnsafeBytes { Poly1305.authenticate($0, key: keyWords) }
        return withUnsafeBytes(of: SIMD2(tag[0].littleEndian, tag[1].littleEndian)) { Array($0) }
    }

    /// XORs `input` with the keystream into `output`: from byte 32 of `firstBlock` (its first 32 bytes are the
    /// Poly1305 key), then block after block from `stream`.
    private static func applyKeystream(
        _ input: UnsafeRawBufferPointer, to output: UnsafeMutableRawBufferPointer, firstBlock: SIMD16<UInt32>,
        stream: inout XSalsa20
    ) {
        let count = input.count
        var offset = min(32, count)
        xorBytes(input, to: output, range: 0..<offset, keystream: firstBlock.littleEndianLayout, keystreamOffset: 32)
        while count - offset >= 64 {
            let plain = input.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self)
            output.storeBytes(of: plain ^ stream.nextBlock().littleEndianLayout, toByteOffset: offset, as: SIMD16<UInt32>.self)
            offset += 64
        }
        if offset < count {
            xorBytes(input, to: output, range: offset..<count, keystream: stream.nextBlock().littleEndianLayout, keystreamOffset: 0)
        }
    }

    /// The byte-by-byte XOR for the ends that do not fill a 64-byte block.
    private static func xorBytes(
        _ input: UnsafeRawBufferPointer, to output: UnsafeMutableRawBufferPointer, range: Range<Int>,
        keystream: SIMD16<UInt32>, keystreamOffset: Int
    ) {
        withUnsafeBytes(of: keystream) { keystreamBytes in
            for index in range {
                output[index] = input[index] ^ keystreamBytes[keystreamOffset + index - range.lowerBound]
            }
        }
    }
}

extension SecretBox {
    /// The XSalsa20 keystream, 64 bytes at a time: HSalsa20 turns the key and the nonce's first 16 bytes into a
    /// subkey, and Salsa20/20 runs on that subkey, the nonce's last 8 bytes and a 64-bit block counter from 0.
    struct XSalsa20 {
        /// The next block's Salsa20 input: constants, subkey, nonce, counter.
        private var input: SIMD16<UInt32>

        init(key: [UInt8], nonce: [UInt8]) {
            let keyWords = key.withUnsafeBytes { SIMD8<UInt32>(littleEndianWordsOf: $0) }
            let (nonceHead, nonceTail) = nonce.withUnsafeBytes { bytes in
                (SIMD4<UInt32>(littleEndianWordsOf: bytes), SIMD2<UInt32>(littleEndianWordsOf: UnsafeRawBufferPointer(rebasing: bytes[16...])))
            }
            let mixed = Self.rounds(Self.input(key: keyWords, middle: nonceHead))
            // HSalsa20 keeps, without the final addition, the words where the constants and the nonce went in.
            let subkey = SIMD8(mixed[0], mixed[5], mixed[10], mixed[15], mixed[6], mixed[7], mixed[8], mixed[9])
            input = Self.input(key: subkey, middle: SIMD4(lowHalf: nonceTail, highHalf: .zero))
        }

        /// The next 64 keystream bytes, as 16 words to serialise little-endian.
        mutating func nextBlock() -> SIMD16<UInt32> {
            let block = Self.rounds(input) &+ input
            // Words 8 and 9 are the block counter, low word first.
            input[8] &+= 1
            if input[8] == 0 { input[9] &+= 1 }
            return block
        }

        /// The Salsa20 input matrix: "expand 32-byte k" on the diagonal, the key around it, and four middle words
        /// (the 16-byte nonce for HSalsa20; nonce and counter for Salsa20).
        private static func input(key: SIMD8<UInt32>, middle: SIMD4<UInt32>) -> SIMD16<UInt32> {
            SIMD16(
                0x6170_7865, key[0], key[1], key[2],
                key[3], 0x3320_646e, middle[0], middle[1],
                middle[2], middle[3], 0x7962_2d32, key[4],
                key[5], key[6], key[7], 0x6b20_6574)
        }

        /// Ten double rounds (a column round, then a row round) over the 4×4 matrix, without the final addition.
        private static func rounds(_ input: SIMD16<UInt32>) -> SIMD16<UInt32> {
            var x0 = input[0], x1 = input[1], x2 = input[2], x3 = input[3]
            var x4 = input[4], x5 = input[5], x6 = input[6], x7 = input[7]
            var x8 = input[8], x9 = input[9], x10 = input[10], x11 = input[11]
            var x12 = input[12], x13 = input[13], x14 = input[14], x15 = input[15]
            for _ in 0..<10 {
                quarterRound(&x0, &x4, &x8, &x12)
                quarterRound(&x5, &x9, &x13, &x1)
                quarterRound(&x10, &x14, &x2, &x6)
                quarterRound(&x15, &x3, &x7, &x11)
                quarterRound(&x0, &x1, &x2, &x3)
                quarterRound(&x5, &x6, &x7, &x4)
                quarterRound(&x10, &x11, &x8, &x9)
                quarterRound(&x15, &x12, &x13, &x14)
            }
            return SIMD16(x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15)
        }

        @inline(__always)
        private static func quarterRound(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
            b ^= rotated(a &+ d, by: 7)
            c ^= rotated(b &+ a, by: 9)
            d ^= rotated(c &+ b, by: 13)
            a ^= rotated(d &+ c, by: 18)
        }

        @inline(__always)
        private static func rotated(_ word: UInt32, by count: UInt32) -> UInt32 {
            (word &<< count) | (word &>> (32 - count))
        }
    }
}

extension SecretBox {
    /// Poly1305 over a whole message at once, in five 26-bit limbs so that every product fits a UInt64: limbs stay
    /// below 2^27 and r's below 2^26, so a row of five products (some times 5) stays below 2^58.
    enum Poly1305 {
        private static let limbMask: UInt64 = 0x3ff_ffff

        /// The tag, as its low and high 64 bits. `key` holds r (words 0–3) and s (words 4–7).
        static func authenticate(_ message: UnsafeRawBufferPointer, key: SIMD8<UInt32>) -> SIMD2<UInt64> {
            // r clamped as RFC 8439 says: the top 4 bits of every 32-bit word and the low 2 of words 1–3 cleared.
            let rLow = (UInt64(key[0]) | UInt64(key[1]) << 32) & 0x0fff_fffc_0fff_ffff
            let rHigh = (UInt64(key[2]) | UInt64(key[3]) << 32) & 0x0fff_fffc_0fff_fffc
            let r0 = rLow & limbMask, r1 = (rLow >> 26) & limbMask, r2 = (rLow >> 52 | rHigh << 12) & limbMask
            let r3 = (rHigh >> 14) & limbMask, r4 = rHigh >> 40
            // 2^130 ≡ 5 (mod p): a product that passes 2^130 comes back in at the bottom times 5.
            let s1 = r1 &* 5, s2 = r2 &* 5, s3 = r3 &* 5, s4 = r4 &* 5
            var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0, h3: UInt64 = 0, h4: UInt64 = 0

            // h = (h + block) · r mod p, the block read little-endian with a 1 bit above its last byte.
            @inline(__always)
            func absorb(low: UInt64, high: UInt64, topBit: UInt64) {
                h0 &+= low & limbMask
                h1 &+= (low >> 26) & limbMask
                h2 &+= (low >> 52 | high << 12) & limbMask
                h3 &+= (high >> 14) & limbMask
                h4 &+= high >> 40 | topBit
                let d0 = h0 &* r0 &+ h1 &* s4 &+ h2 &* s3 &+ h3 &* s2 &+ h4 &* s1
                var d1 = h0 &* r1 &+ h1 &* r0 &+ h2 &* s4 &+ h3 &* s3 &+ h4 &* s2
                var d2 = h0 &* r2 &+ h1 &* r1 &+ h2 &* r0 &+ h3 &* s4 &+ h4 &* s3
                var d3 = h0 &* r3 &+ h1 &* r2 &+ h2 &* r1 &+ h3 &* r0 &+ h4 &* s4
                var d4 = h0 &* r4 &+ h1 &* r3 &+ h2 &* r2 &+ h3 &* r1 &+ h4 &* r0
                d1 &+= d0 >> 26; h0 = d0 & limbMask
                d2 &+= d1 >> 26; h1 = d1 & limbMask
                d3 &+= d2 >> 26; h2 = d2 & limbMask
                d4 &+= d3 >> 26; h3 = d3 & limbMask
                h0 &+= (d4 >> 26) &* 5; h4 = d4 & limbMask
                h1 &+= h0 >> 26; h0 &= limbMask
            }

            let fullBlockBytes = message.count & ~15
            var offset = 0
            while offset < fullBlockBytes {
                absorb(
                    low: UInt64(littleEndian: message.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                    high: UInt64(littleEndian: message.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)),
                    topBit: 1 << 24)
                offset += 16
            }
            if offset < message.count {
                // The last, short block: its bytes, a 1 byte, zeros to 16, and no bit above.
                var last = SIMD2<UInt64>()
                withUnsafeMutableBytes(of: &last) { bytes in
                    for index in offset..<message.count { bytes[index - offset] = message[index] }
                    bytes[message.count - offset] = 1
                }
                absorb(low: UInt64(littleEndian: last[0]), high: UInt64(littleEndian: last[1]), topBit: 0)
            }

            // Two full carry passes leave every limb below 2^26 and h below 2^130.
            for _ in 0..<2 {
                h1 &+= h0 >> 26; h0 &= limbMask
                h2 &+= h1 >> 26; h1 &= limbMask
                h3 &+= h2 >> 26; h2 &= limbMask
                h4 &+= h3 >> 26; h3 &= limbMask
                h0 &+= (h4 >> 26) &* 5; h4 &= limbMask
            }
            // g = h + 5 - 2^130 = h - p; when it does not go below zero, h ≥ p and g is h reduced.
            var g0 = h0 &+ 5
            var g1 = h1 &+ (g0 >> 26); g0 &= limbMask
            var g2 = h2 &+ (g1 >> 26); g1 &= limbMask
            var g3 = h3 &+ (g2 >> 26); g2 &= limbMask
            var g4 = h4 &+ (g3 >> 26); g3 &= limbMask
            let useG = 0 &- (g4 >> 26)  // all ones when h + 5 reached 2^130, chosen without a branch
            g4 &= limbMask
            h0 = (h0 & ~useG) | (g0 & useG)
            h1 = (h1 & ~useG) | (g1 & useG)
            h2 = (h2 & ~useG) | (g2 & useG)
            h3 = (h3 & ~useG) | (g3 & useG)
            h4 = (h4 & ~useG) | (g4 & useG)

            // (h + s) mod 2^128.
            let hLow = h0 | h1 << 26 | h2 << 52
            let hHigh = h2 >> 12 | h3 << 14 | h4 << 40
            let (tagLow, carry) = hLow.addingReportingOverflow(UInt64(key[4]) | UInt64(key[5]) << 32)
            let tagHigh = hHigh &+ (UInt64(key[6]) | UInt64(key[7]) << 32) &+ (carry ? 1 : 0)
            return SIMD2(tagLow, tagHigh)
        }
    }
}

extension SIMD where Scalar == UInt32 {
    /// The vector's words read little-endian from the start of `bytes`, which must hold at least `scalarCount` words.
    fileprivate init(littleEndianWordsOf bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 4 * Self.scalarCount)
        self.init()
        for index in indices {
            self[index] = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
    }
}

extension SIMD16<UInt32> {
    /// The words in memory as the little-endian bytes the keystream is made of (nothing to do on little-endian hosts).
    fileprivate var littleEndianLayout: Self {
        var result = self
        for index in indices { result[index] = self[index].littleEndian }
        return result
    }
}
