import Foundation
import Testing

@testable import RideKit
import TestSupport

/// `JSONParser` against Foundation's `JSONDecoder` (decoding `JSONValue`, what the readers used before): the
/// same value for every JSON fixture and for random documents written by `JSONSerialization`, the same
/// verdict on the edge cases of RFC 8259.
@Suite struct JSONParserTests {
    static func reference(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }

    @Test(arguments: Fixtures.files(under: "").filter { $0.hasSuffix(".json") || $0.hasSuffix(".geojson") })
    func fixturesReadAsJSONDecoderReadsThem(path: String) throws {
        let data = try Data(contentsOf: Fixtures.url(path))
        let expected = Self.reference(data)
        let parsed = try? JSONParser.parse(data)
        #expect(parsed == expected, "\(path)")
    }

    @Test func randomDocumentsReadAsJSONDecoderReadsThem() throws {
        var generator = SeededGenerator(seed: 12)
        func randomValue(_ depth: Int) -> Any {
            switch depth > 4 ? Int.random(in: 0..<4, using: &generator) : Int.random(in: 0..<6, using: &generator) {
            case 0: return NSNull()
            case 1: return Bool.random(using: &generator)
            case 2:
                let scale = [1.0, 1e-7, 1e7, 1e300, 1e-300][Int.random(in: 0..<5, using: &generator)]
                return (generator.unit() - 0.5) * scale
            case 3:
                let alphabet = Array("aé\"\\/\n\t€😀 z\u{1}")
                return String((0..<Int.random(in: 0..<12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            case 4: return (0..<Int.random(in: 0..<5, using: &generator)).map { _ in randomValue(depth + 1) }
            default:
                var object: [String: Any] = [:]
                for index in 0..<Int.random(in: 0..<5, using: &generator) { object["k\(index)é"] = randomValue(depth + 1) }
                return object
            }
        }
        for _ in 0..<300 {
            let document = [randomValue(0)]
            let data = try JSONSerialization.data(withJSONObject: document)
            let expected = try #require(Self.reference(data), "\(String(decoding: data, as: UTF8.self))")
            #expect(try JSONParser.parse(data) == expected, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    static let edgeCases: [String] = [
        // Valid (a trailing comma too: JSONDecoder forgives one, and files that imported before still do).
        "0", "-0", "[1,]", #"{"a":1 , }"#, "1e5", "1E+5", "-1.5e-3", "123456789012345678901234567890", "0.1", "[]", "{}", " [1, 2] ", "\t{\"a\" : [ ]}\r\n",
        #""\u00e9\u20AC""#, #""\ud83d\ude00""#, #""\/\b\f\n\r\t\\\"""#, "true", "false", "null", #"{"a":{"b":[null,true]}}"#,
        // Not valid.
        "", "   ", "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "[1,,]", "[,1]", "[,]", #"{,}"#, #"{"a":1,,}"#, #"{"a"}"#, "{a:1}", "tru", "nul",
        "nulls", "[1 2]", "{} {}", #""abc"#, #""\x""#, "\"a\u{1}b\"", "1e400", "-1e400", "NaN", "Infinity", "'a'", "[", "]", "{",
        #"{"a":1"#, #""\u12""#, #""\u12G4""#,
    ]

    @Test(arguments: edgeCases)
    func edgeCasesAsJSONDecoder(text: String) {
        let data = Data(text.utf8)
        let expected = Self.reference(data)
        let parsed = try? JSONParser.parse(data)
        #expect(parsed == expected, "\(text)")
    }

    /// Beyond what `JSONDecoder` says about them: what this parser guarantees on its own.
    @Test func strictWhereItMatters() throws {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data(#""\ud800""#.utf8)) }           // lone high surrogate
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data(#""\udc00x""#.utf8)) }          // lone low surrogate
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data([0x22, 0xFF, 0x22])) }          // not UTF-8
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data([0x22, 0xC3, 0x22])) }          // cut UTF-8
        #expect(try JSONParser.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) == .array([.number(1)]))  // BOM skipped
        #expect(try JSONParser.parse(Data(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .number(2)]))           // the last wins
        #expect(try JSONParser.parse(Data("0.1".utf8)) == .number(0.1))
        #expect(try JSONParser.parse(Data("46.51234567890123".utf8)) == .number(46.51234567890123))
        // The failure says what and where.
        #expect(throws: JSONParser.Failure(reason: "expected ',' or ']' in an array", offset: 3)) { try JSONParser.parse(Data("[1 2]".utf8)) }
    }

    @Test func nestingIsBoundedNotAStackOverflow() throws {
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(try JSONParser.parse(Data(ok.utf8), maximumDepth: 32) != .null)
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data(deep.utf8), maximumDepth: 32) }
        let hostile = String(repeating: "[{\"a\":", count: 200_000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data(hostile.utf8)) }
    }
}
