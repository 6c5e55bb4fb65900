import Foundation
import Testing

@testable import RideKit

/// Reading is linear in the input for every construct of XML: doubling how often a construct occurs, or how long
/// it is, at most about doubles the reader's work. The work is what the scanner counts (`XMLScanner.workSteps`:
/// bytes passed over by every scanning pass, table probes, bindings compared), not time, so that the test does
/// not depend on the machine; `Benchmarks/run-scaling.sh` times the same shapes in a release build.
///
/// The scanner reads in chunks of 4 KiB here, so that long constructs cross many chunk boundaries (a token
/// read again from its start at every boundary was quadratic).
@Suite struct GPXReadingScalesLinearlyTests {
    static let gpxOpen = "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"

    /// A construct, how many of it (or how many bytes) the smaller input has, and the document with `n` of it.
    struct Construct: CustomTestStringConvertible, Sendable {
        let name: String
        let n: Int
        let document: @Sendable (Int) -> String
        var testDescription: String { name }
    }

    static func inExtensions(_ body: String, declaring: String = "") -> String {
        "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"\(declaring)><extensions>\(body)</extensions></gpx>"
    }

    static func inTrackName(_ text: String) -> String {
        gpxOpen + "<trk><name>\(text)</name></trk></gpx>"
    }

    static let constructs: [Construct] = [
        Construct(name: "track points", n: 400) { n in
            gpxOpen + "<trk><trkseg>"
                + (0..<n).map { "\n  <trkpt lat=\"1.\($0)\" lon=\"2\"><ele>\($0)</ele><time>2024-05-01T08:00:00Z</time></trkpt>" }.joined()
                + "</trkseg></trk></gpx>"
        },
        // At most `maxAttributes` (256) on one element: 120 and 240.
        Construct(name: "attributes on one element", n: 120) { n in
            inExtensions("<x " + (0..<n).map { "a\($0)=\"\"" }.joined(separator: " ") + "/>")
        },
        Construct(name: "attributes in distinct namespaces", n: 30) { n in
            inExtensions(
                "<x " + (0..<n).map { "xmlns:p\($0)=\"urn:p\($0)\" p\($0):a=\"\"" }.joined(separator: " ") + "/>")
        },
        Construct(name: "namespace declarations on one element", n: 30) { n in
            inExtensions("<x " + (0..<n).map { "xmlns:p\($0)=\"urn:\($0)\"" }.joined(separator: " ") + "><p0:y/></x>")
        },
        // Declarations piling up down a deep tree, then prefixes looked up past all of them (two prefixes taking
        // turns, so that the last-prefix shortcut does not help).
        Construct(name: "namespace bindings in scope", n: 400) { n in
            inExtensions(
                (0..<n).map { "<e xmlns:q\($0)=\"urn:q\($0)\">" }.joined()
                    + String(repeating: "<p:x/><q0:x/>", count: n) + String(repeating: "</e>", count: n),
                declaring: " xmlns:p=\"urn:p\"")
        },
        Construct(name: "a long element name", n: 40_000) { n in
            inExtensions("<" + String(repeating: "n", count: n) + "/>")
        },
        Construct(name: "nesting depth", n: 500) { n in
            inExtensions(String(repeating: "<a>", count: n) + String(repeating: "</a>", count: n))
        },
        Construct(name: "character references", n: 5_000) { n in inTrackName(String(repeating: "&#x41;&#66;", count: n)) },
        Construct(name: "entity references", n: 5_000) { n in inTrackName(String(repeating: "&amp;&lt;", count: n)) },
        Construct(name: "long text", n: 40_000) { n in inTrackName(String(repeating: "t", count: n)) },
        Construct(name: "white space", n: 40_000) { n in
            gpxOpen + "<trk>" + String(repeating: " \n", count: n / 2) + "<name>x</name></trk></gpx>"
        },
        Construct(name: "comments", n: 2_000) { n in
            gpxOpen + "<trk>" + String(repeating: "<!-- c -->", count: n) + "</trk></gpx>"
        },
        Construct(name: "a long comment", n: 40_000) { n in
            gpxOpen + "<!--" + String(repeating: "c", count: n) + "--></gpx>"
        },
        Construct(name: "CDATA sections", n: 2_000) { n in
            inExtensions("<x>" + String(repeating: "<![CDATA[a<]]>", count: n) + "</x>")
        },
        Construct(name: "a long CDATA section", n: 40_000) { n in
            inExtensions("<x><![CDATA[" + String(repeating: "c", count: n) + "]]></x>")
        },
        Construct(name: "text split by comments", n: 2_000) { n in
            inExtensions("<x>" + String(repeating: "a<!-- -->", count: n) + "</x>")
        },
        Construct(name: "processing instructions", n: 2_000) { n in
            gpxOpen + String(repeating: "<?pi data?>", count: n) + "</gpx>"
        },
        Construct(name: "a long processing instruction", n: 40_000) { n in
            gpxOpen + "<?pi " + String(repeating: "d", count: n) + "?></gpx>"
        },
        Construct(name: "a long attribute value", n: 40_000) { n in
            inExtensions("<x a=\"" + String(repeating: "v", count: n) + "\"/>")
        },
    ]

    /// The scanner's work for reading `text` as GPX (the whole reader: scanner and GPX layer).
    static func work(_ text: String) throws -> Int {
        let scanner = XMLScanner(source: MemorySource(Array(text.utf8)), lenient: false, chunkSize: 4096) { _ in true }
        var parser = GPXParser(scanner: scanner, handler: GPXDocumentBuilder(), lenient: false)
        try parser.parse()
        return parser.scanner.workSteps
    }

    @Test(arguments: constructs)
    func doublingAConstructAtMostAboutDoublesTheWork(_ construct: Construct) throws {
        let small = construct.document(construct.n)
        let large = construct.document(2 * construct.n)
        let smallWork = try Self.work(small)
        let largeWork = try Self.work(large)
        // The counter sees every byte at least once: a counter that stopped counting would pass the ratio.
        #expect(smallWork >= small.utf8.count)
        let ratio = Double(largeWork) / Double(smallWork)
        #expect(ratio <= 2.5, "\(construct.name): work \(smallWork) for n = \(construct.n), \(largeWork) for 2n (× \(ratio))")
    }

    /// Pairwise duplicate checks, a search through the bindings and a token read again at every chunk are each
    /// quadratic; the counter must see such work, or the test above could not fail. Reading one long token in
    /// chunks of 4 KiB costs a bounded number of passes over it: about twice its length, never its square.
    @Test func aLongTokenIsPassedOverAFewTimesNotOncePerChunk() throws {
        let text = Self.inTrackName(String(repeating: "t", count: 400_000))
        let work = try Self.work(text)
        #expect(work < 4 * text.utf8.count)
    }
}

/// The hashed paths that keep reading linear (prefix lookup with many bindings in scope, duplicate check with
/// many attributes) give the namespaces the plain search gives.
@Suite struct HashedNamespaceLookupTests {
    static let declarations = (0..<10).map { " xmlns:b\($0)=\"urn:b\($0)\"" }.joined()

    @Test func anInnerBindingHidesTheOuterOneUntilItsElementCloses() throws {
        let text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:a=\"urn:a\"\(Self.declarations)>"
            + "<extensions><a:x xmlns:a=\"urn:inner\" b4:c=\"1\"><a:y/></a:x><a:z b9:c=\"2\"/></extensions></gpx>"
        let document = try GPXReader.read(bytes: Array(text.utf8))
        let expected = [
            XMLElementNode(
                namespace: "urn:inner", localName: "x", attributes: [XMLAttribute(namespace: "urn:b4", localName: "c", value: "1")],
                children: [.element(XMLElementNode(namespace: "urn:inner", localName: "y"))]),
            XMLElementNode(namespace: "urn:a", localName: "z", attributes: [XMLAttribute(namespace: "urn:b9", localName: "c", value: "2")]),
        ]
        #expect(document.extensions == expected)
    }

    @Test func aPrefixDeclaredOnAClosedElementIsUnboundAgain() {
        let text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"\(Self.declarations)>"
            + "<extensions><x xmlns:q=\"urn:q\"/><q:y/></extensions></gpx>"
        let error = #expect(throws: GPXError.self) { try GPXReader.read(bytes: Array(text.utf8)) }
        #expect(error?.message.contains("'q' is not declared") == true)
    }
}
