import Foundation

/// The answer to an OwnTracks phone's HTTP post that shows other people on its map (OwnTracks' "Friends in HTTP
/// mode"): for each friend a `card` message (`name`, `tid`, `face`: a picture of the initials) and a `location` message (`tid`, `lat`, `lon`, `tst` in
/// seconds since 1970, `acc` when known), in one JSON array. The phone ties the two together by `tid`.
///
///     let answer = OwnTracksFriends.answer([.init(name: "Ana", latitude: 46.52, longitude: 6.63, time: date)])
///     // [{"_type":"card","name":"Ana","tid":"AN"},{"_type":"location","lat":46.52,"lon":6.63,"tid":"AN","tst":…}]
///
/// What is passed in is what the phone shows: the caller leaves out positions inside the friend's privacy zones.
/// O(friends).
public enum OwnTracksFriends {
    /// One friend's latest position.
    public struct Friend: Sendable, Hashable {
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var time: Date
        public var accuracyMeters: Double?

        public init(name: String, latitude: Double, longitude: Double, time: Date, accuracyMeters: Double? = nil) {
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.time = time
            self.accuracyMeters = accuracyMeters
        }
    }

    /// A two-character tracker id from a name: its first two letters or digits, upper-cased ("ana.b" → "AN"), padded
    /// with "X"; OwnTracks shows it in the friend's pin.
    public static func trackerID(for name: String) -> String {
        let letters = name.uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return String((letters + "XX").prefix(2))
    }

    /// The messages for `friends`, as JSON: a card and a location each, friends whose tracker ids collide told apart
    /// by a digit in the second place. Positions that are not finite or out of range are left out (never sent as
    /// JSON the phone cannot read).
    public static func answer(_ friends: [Friend]) -> Data {
        var used: Set<String> = []
        var messages: [[String: Any]] = []
        for friend in friends {
            guard friend.latitude.isFinite, friend.longitude.isFinite, abs(friend.latitude) <= 90, abs(friend.longitude) <= 180 else { continue }
            var tid = trackerID(for: friend.name)
            var digit = 0
            while used.contains(tid), digit < 10 {
                tid = String(tid.prefix(1)) + String(digit)
                digit += 1
            }
            used.insert(tid)
            // OwnTracks' schema requires a card's `face` (card-without-face fails its tests): the initials, drawn.
            messages.append(["_type": "card", "name": friend.name, "tid": tid, "face": face(tid).base64EncodedString()])
            var location: [String: Any] = [
                "_type": "location", "tid": tid, "lat": friend.latitude, "lon": friend.longitude,
                "tst": Int(friend.time.timeIntervalSince1970.rounded(.down)),
            ]
            if let accuracy = friend.accuracyMeters, accuracy.isFinite, accuracy >= 0 { location["acc"] = Int(accuracy.rounded()) }
            messages.append(location)
        }
        // Only strings, finite numbers and integers: serialisation cannot fail.
        return (try? JSONSerialization.data(withJSONObject: messages, options: [.sortedKeys])) ?? Data("[]".utf8)
    }

    /// `answer(friends)` for a phone that encrypts (its "encryption key" setting, `key` made from the same secret by
    /// `SecretBox.key(fromSecret:)`): each message as `{"_type":"encrypted","data": base64(nonce + secretbox)}`, a
    /// fresh random nonce each, as the phone sends its own.
    public static func answer(_ friends: [Friend], key: [UInt8]) -> Data {
        guard let plain = try? JSONSerialization.jsonObject(with: answer(friends)) as? [Any] else { return Data("[]".utf8) }
        var generator = SystemRandomNumberGenerator()
        let sealed: [[String: String]] = plain.compactMap { message in
            guard let bytes = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else { return nil }
            let nonce = (0..<SecretBox.nonceByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            return ["_type": "encrypted", "data": Data(nonce + SecretBox.seal([UInt8](bytes), nonce: nonce, key: key)).base64EncodedString()]
        }
        return (try? JSONSerialization.data(withJSONObject: sealed, options: [.sortedKeys])) ?? Data("[]".utf8)
    }

    /// A 40 × 40 PNG of the tracker id in white on a colour of its own (the phone shows it instead of the letters).
    static func face(_ tid: String) -> Data {
        var canvas = RGBACanvas(width: 40, height: 40)
        let palette = [
            RGBAColor(red: 198, green: 40, blue: 40), RGBAColor(red: 21, green: 101, blue: 192), RGBAColor(red: 46, green: 125, blue: 50),
            RGBAColor(red: 106, green: 27, blue: 154), RGBAColor(red: 239, green: 108, blue: 0), RGBAColor(red: 0, green: 131, blue: 143),
        ]
        canvas.fill(palette[tid.unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF } % palette.count])
        let scale = 3
        BitmapFont.draw(
            tid, on: &canvas, x: (40 - BitmapFont.width(of: tid, scale: scale)) / 2, y: (40 - BitmapFont.glyphHeight * scale) / 2, scale: scale,
            color: RGBAColor(red: 255, green: 255, blue: 255))
        return PNGEncoder.encode(canvas)
    }
}
