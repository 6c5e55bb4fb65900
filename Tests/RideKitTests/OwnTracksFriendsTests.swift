import Foundation
import RideKit
import Testing
import TestSupport

/// The friends answer an OwnTracks phone gets, checked by the rules of OwnTracks' JSON schema (owntracks/json-schema:
/// a location needs `_type`, numeric `lat` and `lon`, an integer `tst`; a card a `_type`; `tid` a string), which the
/// check below applies and which is itself checked against that repository's own valid and invalid test messages.
@Suite struct OwnTracksFriendsTests {
    /// Why a message breaks the schema's rules, or nil.
    static func violation(_ message: [String: Any]) -> String? {
        guard let type = message["_type"] as? String else { return "no _type" }
        if let tid = message["tid"], !(tid is String) { return "tid not a string" }
        switch type {
        case "location":
            for key in ["lat", "lon"] {
                guard !(message[key] is String), let value = message[key] as? NSNumber else { return "\(key) not a number" }
                if !(value.doubleValue.isFinite) { return "\(key) not finite" }
            }
            guard let tst = message["tst"] as? NSNumber, tst.doubleValue == tst.doubleValue.rounded() else { return "tst not an integer" }
            return nil
        case "card":
            // The schema requires `face` and `name` (its test card-without-face.json is listed to fail).
            guard message["name"] is String else { return "name not a string" }
            guard let face = message["face"] as? String, Data(base64Encoded: face) != nil else { return "no base64 face" }
            return nil
        case "transition":
            for key in ["lat", "lon"] where message[key] != nil && (message[key] is String || !(message[key] is NSNumber)) { return "\(key) not a number" }
            return message["tst"] == nil ? "no tst" : nil
        case "lwt":
            return message["tst"] == nil ? "no tst" : nil
        default:
            return nil
        }
    }

    @Test(arguments: [
        ("json-schema__l.json", true), ("json-schema__l2.json", true), ("json-schema__location-5s.json", true),
        ("json-schema__location-short.json", true), ("json-schema__location-sk.json", true), ("json-schema__lwt.json", true),
        ("json-schema__location-lat-missing.json", false), ("json-schema__transition-illegal-lat.json", false),
        ("json-schema__lwt-notst.json", false),
    ])
    func theCheckAgreesWithTheSchemasOwnTests(_ file: String, _ valid: Bool) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try Fixtures.bytes("clients/owntracks/" + file))) as? [String: Any])
        let broken = Self.violation(object)
        #expect((broken == nil) == valid, "\(file): \(broken ?? "valid")")
    }

    @Test func everyFriendGetsACardAndALocationTiedByTrackerID() throws {
        let time = Date(timeIntervalSince1970: 1_700_000_123.9)
        let answer = OwnTracksFriends.answer([
            .init(name: "ana", latitude: 46.52, longitude: 6.63, time: time, accuracyMeters: 12.4),
            .init(name: "Anabel", latitude: -33.9, longitude: 151.2, time: time),
            .init(name: "bad", latitude: .nan, longitude: 0, time: time),
            .init(name: "<b>é</b>", latitude: 0, longitude: 0, time: time),
        ])
        let messages = try #require(try JSONSerialization.jsonObject(with: answer) as? [[String: Any]])
        for message in messages { #expect(Self.violation(message) == nil, "\(message)") }
        #expect(messages.count == 6)
        let cards = messages.filter { $0["_type"] as? String == "card" }, locations = messages.filter { $0["_type"] as? String == "location" }
        #expect(cards.map { $0["name"] as? String } == ["ana", "Anabel", "<b>é</b>"])
        let tids = cards.compactMap { $0["tid"] as? String }
        // "<b>é</b>": its ASCII letters are b and b (é is left out).
        #expect(tids == ["AN", "A0", "BB"] && Set(tids).count == 3)
        #expect(locations.compactMap { $0["tid"] as? String } == tids)
        #expect(locations[0]["tst"] as? Int == 1_700_000_123 && locations[0]["acc"] as? Int == 12 && locations[1]["acc"] == nil)
        #expect(String(decoding: OwnTracksFriends.answer([]), as: UTF8.self) == "[]")
        // Each face is a PNG of 40 x 40 pixels.
        for card in cards {
            let face = try #require(card["face"] as? String)
            let png = try PNGDecoder.decode(try #require(Data(base64Encoded: face)))
            #expect(png.width == 40 && png.height == 40)
        }
    }

    /// A phone that encrypts gets its friends encrypted: each message opens with the key of the same secret (and
    /// not with another), and reads as the plain answer's message.
    @Test func anEncryptingPhoneGetsEachMessageSealedWithItsKey() throws {
        let friends = [OwnTracksFriends.Friend(name: "Ana", latitude: 46.52, longitude: 6.63, time: Date(timeIntervalSince1970: 1_700_000_000))]
        let key = SecretBox.key(fromSecret: "family secret")
        let sealed = try #require(try JSONSerialization.jsonObject(with: OwnTracksFriends.answer(friends, key: key)) as? [[String: Any]])
        let plain = try #require(try JSONSerialization.jsonObject(with: OwnTracksFriends.answer(friends)) as? [[String: Any]])
        #expect(sealed.count == plain.count && sealed.allSatisfy { $0["_type"] as? String == "encrypted" })
        for (box, expected) in zip(sealed, plain) {
            let data = try #require(box["data"] as? String)
            let bytes = [UInt8](try #require(Data(base64Encoded: data)))
            let nonce = Array(bytes.prefix(SecretBox.nonceByteCount)), boxed = Array(bytes.dropFirst(SecretBox.nonceByteCount))
            #expect(SecretBox.open(boxed, nonce: nonce, key: SecretBox.key(fromSecret: "another secret")) == nil)
            let opened = try #require(SecretBox.open(boxed, nonce: nonce, key: key))
            let message = try #require(try JSONSerialization.jsonObject(with: Data(opened)) as? [String: Any])
            #expect(Self.violation(message) == nil)
            #expect(NSDictionary(dictionary: message).isEqual(to: expected))
        }
    }
}
