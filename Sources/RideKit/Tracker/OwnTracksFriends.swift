import Foundation

/// The answer to an OwnTracks phone's HTTP post that shows other people on its map (OwnTracks' "Friends in HTTP
/// mode"): for each friend a `card` message (`name`, `tid`) and a `location` message (`tid`, `lat`, `lon`, `tst` in
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
            messages.append(["_type": "card", "name": friend.name, "tid": tid])
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
}
