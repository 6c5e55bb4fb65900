import Foundation
import Testing

@testable import RideKit
import TestSupport

/// Runs only the tokenizer over bytes: true when it reaches the end without error.
func tokenizerAccepts(_ bytes: [UInt8]) -> (Bool, String) {
    do {
        let source = try DecodingSource(MemorySource(bytes))
        let encoding = source.encoding
        var scanner = XMLScanner(source: source, lenient: false) { encoding.accepts(declared: $0) }
        while try scanner.next() != .endOfDocument {}
        return (true, "")
    } catch {
        return (false, "\(error)")
    }
}

/// The tokenizer against libexpat: the same documents accepted and refused.
@Suite struct XMLWellFormednessTests {
    /// Crafted documents around every rule the tokenizer checks; each is judged by both parsers.
    static let crafted: [String] = [
        "<gpx/>", "<gpx></gpx>", "<gpx></gpx >", "<gpx></gpx\n>", "<gpx></gpy>", "<gpx>", "</gpx>", "<gpx/><gpx/>",
        "<gpx/>text", "text<gpx/>", "  <gpx/>  ", "<gpx a='1' a='2'/>", "<gpx a='1'b='2'/>", "<gpx a=1/>",
        "<gpx a='<'/>", "<gpx a='&amp;&lt;&gt;&quot;&apos;'/>", "<gpx a='&foo;'/>", "<gpx>&foo;</gpx>",
        "<gpx>&#65;&#x41;</gpx>", "<gpx>&#0;</gpx>", "<gpx>&#xD800;</gpx>", "<gpx>&#x110000;</gpx>", "<gpx>&#xFFFE;</gpx>",
        "<gpx>&#;</gpx>", "<gpx>&#x;</gpx>", "<gpx>&amp</gpx>", "<gpx>& </gpx>", "<gpx>]]></gpx>", "<gpx>]]</gpx>",
        "<gpx><![CDATA[<&]]></gpx>", "<gpx><![CDATA[x]]]></gpx>", "<![CDATA[x]]><gpx/>", "<gpx><![CDATA[x</gpx>",
        "<gpx><!-- c --></gpx>", "<gpx><!-- a--b --></gpx>", "<gpx><!----></gpx>", "<gpx><!-----></gpx>",
        "<gpx><!-- x ---></gpx>", "<!-- before --><gpx/><!-- after -->", "<gpx><!- x --></gpx>",
        "<?xml version='1.0'?><gpx/>", " <?xml version='1.0'?><gpx/>", "<gpx/><?xml version='1.0'?>",
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?><gpx/>", "<?xml version='1.0' standalone='maybe'?><gpx/>",
        "<?xml encoding='UTF-8'?><gpx/>", "<?xml version='2.0'?><gpx/>", "<?xml version=':.0'?><gpx/>", "<?xml version='1:0'?><gpx/>",
        "<?xml version='a-1_x'?><gpx/>", "<?xml version='1.0' encoding='UTF-8' version='1.0'?><gpx/>",
        "<?x?><gpx/>", "<?x y?><gpx/>", "<gpx><?pi data?></gpx>", "<?xml-stylesheet href='a'?><gpx/>", "<?XML version='1.0'?><gpx/>",
        "<gpx><?xml x?></gpx>", "<?x", "<gpx", "<gpx a='1'", "<gpx><a></b></gpx>", "<1gpx/>", "<-gpx/>", "<gpx><a:b/></gpx>",
        "<gpx xmlns:a='urn:a'><a:b/></gpx>", "<gpx xmlns:a=''/>", "<gpx xmlns=''/>", "<gpx xmlns:xmlns='urn:x'/>",
        "<gpx xmlns:xml='urn:x'/>", "<gpx xmlns:xml='http://www.w3.org/XML/1998/namespace'/>", "<gpx xml:lang='en'/>",
        "<gpx xmlns:a='urn:x' xmlns:b='urn:x' a:c='1' b:c='2'/>", "<gpx xmlns:a='urn:x' a:c='1' c='2'/>", "<gpx a:b:c='1'/>",
        "<a:gpx xmlns:a='urn:a'></a:gpx>", "<a:gpx xmlns:a='urn:a'></gpx>", "<gpx xmlns:a='urn:a'><a:b></a:b></gpx>",
        "<gpx>\u{1}</gpx>", "<gpx>\t\n\r</gpx>", "<gpx a='\t'/>", "<gpx>\u{7F}</gpx>", "<gpx>é</gpx>", "<gpxé/>", "<é/>",
        "<gpx>\u{FFFF}</gpx>", "<gpx>\u{10FFFF}</gpx>", "", " ", "\n\n", "<!DOCTYPE gpx><gpx/>", "<gpx><!DOCTYPE x></gpx>",
        "<gpx></gpx><!-- trailing -->\n", "<gpx/ >", "<gpx / >", "<gpx a = '1' />", "<gpx a='1' / >", "<gpx\n\ta='1'\n/>",
    ] + manyAttributes

    /// More than eight attributes take the hashed duplicate check: the same rules as the pairwise one.
    static let manyAttributes: [String] = {
        let filler = (0..<9).map { " c\($0)=''" }.joined()
        let bindings = (0..<10).map { " xmlns:b\($0)='urn:b\($0 % 3)'" }.joined()
        return [
            "<gpx\(filler)/>", "<gpx\(filler) c3=''/>", "<gpx c3=''\(filler)/>", "<gpx\(filler) C3=''/>",
            "<gpx xmlns:a='urn:x' xmlns:b='urn:x'\(filler) a:c='1' b:c='2'/>",
            "<gpx xmlns:a='urn:x' xmlns:b='urn:y'\(filler) a:c='1' b:c='2'/>",
            "<gpx xmlns:a='urn:x'\(filler) a:c='1' c='2'/>", "<gpx xmlns:a='urn:x'\(filler) a:c0='1'/>",
            "<gpx xmlns:a='urn:x'\(filler) a:c='1' a:c='2'/>", "<gpx xmlns='urn:a'\(filler) xmlns='urn:b'/>",
            "<gpx xmlns:a='urn:a'\(filler) xmlns:a='urn:b'/>", "<gpx xmlns:a='urn:a'\(filler) xmlns:a='urn:a'/>",
            "<gpx xmlns='urn:a'\(filler) xmlns:xmlns='urn:b'/>", "<gpx\(filler) xml:lang='en' xml:lang='de'/>",
            "<gpx\(filler) b:c='1'/>",
            "<gpx xmlns:a='urn:a'><x xmlns:a='urn:b' xmlns:b='urn:a'\(filler) a:c='1' b:c='2'/></gpx>",
            "<gpx xmlns:a='urn:a'><x xmlns:b='urn:a'\(filler) a:c='1' b:c='2'/></gpx>",
            // More than eight bindings in scope take the hashed prefix lookup.
            "<gpx\(bindings)><x xmlns:q='urn:q'><q:y/></x></gpx>", "<gpx\(bindings)><x xmlns:q='urn:q'/><q:y/></gpx>",
            "<gpx\(bindings)><b3:x xmlns:b3='urn:c'><b3:y/></b3:x><b3:z/></gpx>", "<gpx\(bindings)><b9:x/><b1:y b2:c='' b3:c=''/></gpx>",
            "<gpx\(bindings)><x xmlns:b1='urn:x'\(filler) b1:c='' b2:c=''/></gpx>",
        ]
    }()

    @Test(arguments: crafted)
    func sameVerdictAsExpatOnCraftedDocuments(_ document: String) {
        let bytes = Array(document.utf8)
        let expat = ExpatReference.parse(bytes)
        let (ours, message) = tokenizerAccepts(bytes)
        #expect(ours == expat.accepted, "expat: \(expat.accepted ? "accepts" : "refuses (\(expat.message))"); bikeride: \(ours ? "accepts" : message)")
    }

    static let invalidBytes: [[UInt8]] = [
        Array("<gpx>".utf8) + [0xFF] + Array("</gpx>".utf8),
        Array("<gpx>".utf8) + [0xC0, 0x80] + Array("</gpx>".utf8),  // overlong NUL
        Array("<gpx>".utf8) + [0xED, 0xA0, 0x80] + Array("</gpx>".utf8),  // a surrogate in UTF-8
        Array("<gpx>".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("</gpx>".utf8),  // above U+10FFFF
        Array("<gpx>".utf8) + [0xE2, 0x82] + Array("</gpx>".utf8),  // cut sequence
        Array("<tr".utf8) + [0xFF] + Array("k/>".utf8),  // in a name
        Array("<gpx><!-- ".utf8) + [0xFF] + Array(" --></gpx>".utf8),  // in a comment
        Array("<gpx a='".utf8) + [0xFE] + Array("'/>".utf8),  // in an attribute
        Array("<gpx>".utf8) + [0x00] + Array("</gpx>".utf8),
        [0xEF, 0xBB, 0xBF] + Array("<gpx/>".utf8),  // BOM: fine
        [0xFF, 0xFE] + Array("<gpx/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },  // UTF-16LE with BOM
        [0xFE, 0xFF] + Array("<gpx>é</gpx>".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },  // UTF-16BE with BOM
        Array("<?xml version='1.0' encoding='ISO-8859-1'?><gpx>".utf8) + [0xE9] + Array("</gpx>".utf8),
        // Found by the fuzzer: a processing instruction whose target starts with "xml" is no declaration, so
        // its "encoding" does not apply and the byte 0xFC is invalid UTF-8.
        Array("<?xmlsevo irn=\"1.0\" encoding=\"ISO-8859-1\"?><gpx><name>Z".utf8) + [0xFC] + Array("rich</name></gpx>".utf8),
    ]

    @Test(arguments: invalidBytes.indices)
    func sameVerdictAsExpatOnEncodings(_ index: Int) {
        let bytes = Self.invalidBytes[index]
        let expat = ExpatReference.parse(bytes)
        let (ours, message) = tokenizerAccepts(bytes)
        #expect(ours == expat.accepted, "expat: \(expat.accepted ? "accepts" : "refuses (\(expat.message))"); bikeride: \(ours ? "accepts" : message)")
    }

    @Test(arguments: Fixtures.files(under: "gpx").filter { !$0.hasSuffix(".gz") })
    func sameVerdictAsExpatOnFixtures(_ path: String) throws {
        let bytes = try Fixtures.bytes(path)
        let expat = ExpatReference.parse(bytes)
        let (ours, message) = tokenizerAccepts(bytes)
        #expect(ours == expat.accepted, "expat: \(expat.accepted ? "accepts" : "refuses (\(expat.message))"); bikeride: \(ours ? "accepts" : message)")
    }

    /// Where both read a fixture, they find the same points with the same coordinates.
    @Test(arguments: Fixtures.wellFormedGPX)
    func samePointsAsExpat(_ path: String) throws {
        let bytes = try Fixtures.bytes(path)
        let expat = ExpatReference.parse(bytes)
        try #require(expat.accepted)
        let document = try GPXReader.read(bytes: bytes)
        // Old OpenTracks pause markers (lat 100 / 200) are read as segment breaks, not points.
        let expatPoints = expat.points.filter { $0.1.flatMap(Double.init) != 100 && $0.1.flatMap(Double.init) != 200 }
        let ours: [(String, Double, Double)] =
            document.waypoints.map { ("wpt", $0.latitude, $0.longitude) }
            + document.routes.flatMap { $0.points.map { ("rtept", $0.latitude, $0.longitude) } }
            + document.tracks.flatMap { $0.points.map { ("trkpt", $0.latitude, $0.longitude) } }
        let sortedExpat = expatPoints.map { ($0.0, Double($0.1!.trimmingCharacters(in: .whitespaces))!, Double($0.2!.trimmingCharacters(in: .whitespaces))!) }
            .sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        let sortedOurs = ours.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        #expect(sortedExpat.count == sortedOurs.count)
        for (expected, actual) in zip(sortedExpat, sortedOurs) {
            #expect(expected.0 == actual.0 && expected.1 == actual.1 && expected.2 == actual.2)
        }
    }
}
