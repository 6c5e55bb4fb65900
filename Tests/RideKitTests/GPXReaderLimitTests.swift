import Foundation
import Testing

@testable import RideKit

/// What GPX never needs is capped, with an error that names the limit; up to the cap everything reads.
@Suite struct GPXReaderLimitTests {
    static let gpxOpen = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"

    static func element(attributes count: Int) -> [UInt8] {
        Array((gpxOpen + "<extensions>\n<x " + (0..<count).map { "a\($0)=\"1\"" }.joined(separator: " ") + "/></extensions></gpx>").utf8)
    }

    static func element(declarations count: Int) -> [UInt8] {
        Array((gpxOpen + "<extensions>\n<x " + (0..<count).map { "xmlns:p\($0)=\"urn:\($0)\"" }.joined(separator: " ")
            + "/></extensions></gpx>").utf8)
    }

    static func nested(depth: Int) -> [UInt8] {
        // gpx and extensions are two of the levels.
        Array((gpxOpen + "<extensions>" + String(repeating: "<a>", count: depth - 2) + String(repeating: "</a>", count: depth - 2)
            + "</extensions></gpx>").utf8)
    }

    static func trackName(bytes count: Int) -> [UInt8] {
        Array((gpxOpen + "<trk><name>").utf8) + [UInt8](repeating: UInt8(ascii: "n"), count: count) + Array("</name></trk></gpx>".utf8)
    }

    @Test func anElementWithTheMostAttributesAllowedReads() throws {
        let document = try GPXReader.read(bytes: Self.element(attributes: XMLScanner.maxAttributes))
        #expect(document.extensions.first?.attributes.count == 256)
    }

    @Test func oneAttributeMoreIsRefusedWithTheLimitNamed() {
        #expect(XMLScanner.maxAttributes == 256)
        let bytes = Self.element(attributes: 257)
        let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: bytes) }
        #expect(error?.reason == .tooManyAttributes(limit: 256))
        #expect(error?.message.contains("256 attributes") == true)
        // At the 257th attribute, `a256`: line 2, after "<x " and 256 attributes of 6 or 7 characters.
        let column = 4 + (0..<256).map { "a\($0)=\"1\" ".count }.reduce(0, +)
        #expect(error?.line == 2)
        #expect(error?.column == column)
    }

    @Test func anElementWithTheMostNamespaceDeclarationsAllowedReads() throws {
        _ = try GPXReader.read(bytes: Self.element(declarations: XMLScanner.maxNamespaceDeclarations))
    }

    @Test func oneDeclarationMoreIsRefusedWithTheLimitNamed() {
        #expect(XMLScanner.maxNamespaceDeclarations == 64)
        let bytes = Self.element(declarations: 65)
        let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: bytes) }
        #expect(error?.reason == .tooManyNamespaceDeclarations(limit: 64))
        #expect(error?.message.contains("64 namespaces") == true)
        #expect(error?.line == 2)
    }

    @Test func tooManyAttributesIsRefusedEvenInLenientMode() {
        let bytes = Self.element(attributes: 300)
        let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: bytes, options: GPXReadOptions(lenient: true)) }
        #expect(error?.reason == .tooManyAttributes(limit: 256))
    }

    @Test func nestingUpToTheDepthLimitReadsAndOneLevelMoreIsRefused() throws {
        #expect(XMLScanner.maxDepth == 1024)
        _ = try GPXReader.read(bytes: Self.nested(depth: 1024))
        let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: Self.nested(depth: 1025)) }
        #expect(error?.reason == .tooDeep(limit: 1024))
    }

    /// The token limit still holds with the buffer that grows to twice a long token: a 15 MiB text reads, a
    /// 17 MiB one is refused.
    @Test func aTextUpToTheTokenLimitReadsAndALongerOneIsRefused() throws {
        #expect(XMLScanner.maxTokenBytes == 16 << 20)
        let document = try GPXReader.read(bytes: Self.trackName(bytes: 15 << 20))
        #expect(document.tracks.first?.name?.utf8.count == 15 << 20)
        let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: Self.trackName(bytes: 17 << 20)) }
        #expect(error?.reason == .tokenTooLong(limitBytes: 16 << 20))
    }
}
