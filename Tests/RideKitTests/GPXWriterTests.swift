import Foundation
import Testing

@testable import RideKit

/// Documents built in code: the writer must not depend on the reader being there.
enum WriterSamples {
    static func time(_ text: String) -> GPXTime { try! GPXTime(parsing: text) }

    static let customNamespace = "https://example.com/ns/custom"
    static let trackPointExtensionV1 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"

    /// Extension trees that exercise namespaces: a prefix clash, no-namespace and GPX-namespace elements,
    /// namespaced attributes and mixed content.
    static let extensionTrees: [XMLElementNode] = [
        XMLElementNode(
            namespace: customNamespace, localName: "aaa", prefix: "ext",
            attributes: [XMLAttribute(namespace: customNamespace, localName: "jjj", prefix: "ext", value: "k\"k<&>")],
            children: [
                .text("bbb "),
                .element(
                    XMLElementNode(
                        namespace: customNamespace, localName: "ddd", prefix: "ext",
                        attributes: [XMLAttribute(localName: "plain", value: "tab\there\nline")],
                        children: [.text("eee"), .element(XMLElementNode(namespace: "", localName: "bare")), .text("iii")])),
                .text(" hhh"),
            ]),
        // A TrackPointExtension v1 element the reader did not interpret, using the prefix the writer gives v2.
        XMLElementNode(
            namespace: trackPointExtensionV1, localName: "TrackPointExtension", prefix: "gpxtpx",
            children: [
                .element(
                    XMLElementNode(
                        namespace: trackPointExtensionV1, localName: "Extensions", prefix: "gpxtpx",
                        children: [.text("x")]))
            ]),
        // gpxpy's unicode_with_bom.gpx: `<security>` in no namespace.
        XMLElementNode(namespace: "", localName: "security", children: [.text("Open")]),
        // An element in the GPX namespace itself (a GPX 1.1 file with `<extensions><power>`).
        XMLElementNode(namespace: GPXWriter.gpxNamespace, localName: "power", children: [.text("250")]),
        XMLElementNode(
            namespace: "urn:example:other", localName: "note", prefix: "xmlbad",
            attributes: [XMLAttribute(namespace: XMLNamespaceScope.xmlNamespace, localName: "lang", prefix: "xml", value: "en")],
            children: [.text("prefix starting with xml is reserved")]),
    ]

    static let fullPoint = TrackPoint(
        latitude: 46.57608333, longitude: 8.89241667, elevation: 2376.5,
        time: time("2021-01-07T21:51:59.179+01:15"), magneticVariation: 12.5, geoidHeight: 48.2, name: "Summit",
        comment: "cmt", description: "desc", source: "src",
        links: [GPXLink(href: "https://example.com/a?b=1&c=2", text: "A & B", type: "text/html"), GPXLink(href: "https://example.com/b")],
        symbol: "Flag", type: "peak", fix: "dgps", satellites: 9, horizontalDilution: 0.8, verticalDilution: 1.1,
        positionDilution: 1.4, ageOfDGPSDataSeconds: 2.5, dgpsStationID: 1023, speedMetersPerSecond: 4.25,
        courseDegrees: 271.5, heartRate: 142, cadence: 88, temperatureCelsius: -3.5, waterTemperatureCelsius: 11,
        depthMeters: 0.25, powerWatts: 251, extensions: extensionTrees)

    /// Every field the model has, most of them twice in different shapes.
    static let everyField: GPXDocument = {
        var unlisted = fullPoint
        unlisted.fix = "something_not_in_the_spec"
        unlisted.magneticVariation = 370
        unlisted.satellites = -1
        unlisted.dgpsStationID = 2000
        unlisted.extensions = []
        return GPXDocument(
            version: "1.0", creator: "bikeride tests ™",
            metadata: GPXMetadata(
                name: "All <fields> & more", description: "Quote \" and apostrophe '",
                author: GPXPerson(name: "Jane", email: "jane.doe@example.com", link: GPXLink(href: "https://example.com/jane")),
                copyright: GPXCopyright(author: "Jane", year: 2013, license: "https://creativecommons.org/licenses/by/4.0/"),
                links: [GPXLink(href: "https://example.com", text: "Home")], time: time("2013-01-01T12:00:00"),
                keywords: "ride, test", bounds: GPXBounds(minLatitude: -0.000091697, minLongitude: -180, maxLatitude: 90, maxLongitude: 180),
                extensions: [extensionTrees[0]]),
            waypoints: [fullPoint, TrackPoint(latitude: 12.3, longitude: 45.6), TrackPoint(latitude: -90, longitude: 180)],
            routes: [
                Route(
                    name: "Route", comment: "c", description: "d", source: "s", links: [GPXLink(href: "https://example.com/r")],
                    number: 3, type: "bike", points: [fullPoint, TrackPoint(latitude: 1, longitude: 2, elevation: -0.114380)],
                    extensions: [extensionTrees[2]]),
                Route(number: -4),
            ],
            tracks: [
                Track(
                    name: "Track", comment: "c", description: "d", source: "s", links: [GPXLink(href: "https://example.com/t")],
                    number: 1, type: "cycling",
                    segments: [
                        TrackSegment(
                            points: [fullPoint, unlisted, TrackPoint(latitude: 0.000091697, longitude: -0.000005, elevation: 0.000005)],
                            extensions: [extensionTrees[3]]),
                        TrackSegment(),
                        TrackSegment(points: [TrackPoint(latitude: 10, longitude: 20, time: time("2015-12-11T15:43:13.994+01:00"))]),
                    ],
                    extensions: [extensionTrees[1]]),
                Track(number: -2, segments: [TrackSegment()]),
                Track(),
            ],
            extensions: [extensionTrees[4]])
    }()
}

@Suite struct GPXWriterTests {
    static let output = GPXWriter.write(WriterSamples.everyField)
    static var text: String { String(decoding: output, as: UTF8.self) }

    @Test(.enabled(if: WriterTestXML.canValidate, "xmllint or the GPX 1.1 schema is missing (apt-get install libxml2-utils)"))
    func documentWithEveryFieldValidatesAgainstTheSchema() throws {
        let errors = try WriterTestXML.schemaErrors(Self.output)
        #expect(errors == nil, "\(errors ?? "")\n\(Self.text)")
    }

    @Test(.enabled(if: WriterTestXML.canValidate, "xmllint or the GPX 1.1 schema is missing (apt-get install libxml2-utils)"))
    func emptyDocumentValidates() throws {
        let output = GPXWriter.write(GPXDocument())
        #expect(try WriterTestXML.schemaErrors(output) == nil)
        #expect(
            String(decoding: output, as: UTF8.self) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="bikeride">
                </gpx>

                """)
    }

    @Test func sameDocumentGivesSameBytes() {
        for _ in 0..<3 {
            #expect(GPXWriter.write(WriterSamples.everyField) == Self.output)
        }
        #expect(GPXWriter.data(WriterSamples.everyField) == Data(Self.output))
        #expect(GPXWriter.string(WriterSamples.everyField) == Self.text)
    }

    @Test func alwaysWritesVersionOneOneWithCreator() throws {
        let root = try WriterTestXML.parse(Self.output)
        #expect(root.namespace == GPXWriter.gpxNamespace && root.localName == "gpx")
        #expect(root.attributes.first { $0.localName == "version" }?.value == "1.1")
        #expect(root.attributes.first { $0.localName == "creator" }?.value == "bikeride tests ™")
        let overridden = try WriterTestXML.parse(GPXWriter.write(WriterSamples.everyField, creator: "other"))
        #expect(overridden.attributes.first { $0.localName == "creator" }?.value == "other")
    }

    @Test func textAndAttributesAreEscaped() throws {
        #expect(Self.text.contains("<name>All &lt;fields&gt; &amp; more</name>"))
        #expect(Self.text.contains("<desc>Quote \" and apostrophe '</desc>"))
        #expect(Self.text.contains("href=\"https://example.com/a?b=1&amp;c=2\""))
        let root = try WriterTestXML.parse(Self.output)
        let metadata = try #require(root.writtenChildren("metadata").first)
        #expect(metadata.writtenChildren("name").first?.text == "All <fields> & more")
        let attribute = try #require(root.writtenChildren("metadata").first?.writtenChildren("extensions").first?.writtenElementChildren.first?.attributes.first)
        #expect(attribute.value == "k\"k<&>")
    }

    @Test func forbiddenControlCharactersAreReplacedAndLineBreaksKept() throws {
        let name = "a\u{0}b\u{1F}c\u{FFFE}d\u{FFFF}e\r\nf\tg"
        let document = GPXDocument(
            metadata: GPXMetadata(name: name, links: [GPXLink(href: "https://x/\t\n\r\"y")]))
        let output = GPXWriter.write(document)
        let root = try WriterTestXML.parse(output)  // still well-formed
        let metadata = try #require(root.writtenChildren("metadata").first)
        #expect(metadata.writtenChildren("name").first?.text == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\r\nf\tg")
        #expect(metadata.writtenChildren("link").first?.attributes.first?.value == "https://x/\t\n\r\"y")
    }

    @Test func elementsFollowTheSchemaOrder() throws {
        let root = try WriterTestXML.parse(Self.output)
        #expect(root.writtenElementChildren.map(\.localName) == ["metadata", "wpt", "wpt", "wpt", "rte", "rte", "trk", "trk", "trk", "extensions"])
        let metadata = try #require(root.writtenChildren("metadata").first)
        #expect(
            metadata.writtenElementChildren.map(\.localName) == [
                "name", "desc", "author", "copyright", "link", "time", "keywords", "bounds", "extensions",
            ])
        let waypoint = try #require(root.writtenChildren("wpt").first)
        #expect(
            waypoint.writtenElementChildren.map(\.localName) == [
                "ele", "time", "magvar", "geoidheight", "name", "cmt", "desc", "src", "link", "link", "sym", "type", "fix",
                "sat", "hdop", "vdop", "pdop", "ageofdgpsdata", "dgpsid", "extensions",
            ])
        let route = try #require(root.writtenChildren("rte").first)
        #expect(
            route.writtenElementChildren.map(\.localName) == [
                "name", "cmt", "desc", "src", "link", "number", "type", "extensions", "rtept", "rtept",
            ])
        let track = try #require(root.writtenChildren("trk").first)
        #expect(
            track.writtenElementChildren.map(\.localName) == [
                "name", "cmt", "desc", "src", "link", "number", "type", "extensions", "trkseg", "trkseg", "trkseg",
            ])
        #expect(track.writtenChildren("trkseg")[0].writtenElementChildren.map(\.localName) == ["trkpt", "trkpt", "trkpt", "extensions"])
    }

    @Test func emptySegmentsAndEmptyTracksAreWritten() throws {
        let root = try WriterTestXML.parse(Self.output)
        let tracks = root.writtenChildren("trk")
        #expect(tracks.map { $0.writtenChildren("trkseg").count } == [3, 1, 0])
        #expect(tracks[0].writtenChildren("trkseg")[1].writtenElementChildren.isEmpty)
        #expect(tracks[1].writtenChildren("trkseg")[0].writtenElementChildren.isEmpty)
    }

    @Test func timeOffsetsAndDigitsArePreservedTextually() {
        #expect(Self.text.contains("<time>2021-01-07T21:51:59.179+01:15</time>"))
        #expect(Self.text.contains("<time>2015-12-11T15:43:13.994+01:00</time>"))
        #expect(Self.text.contains("<time>2013-01-01T12:00:00</time>"))
    }

    @Test func offsetsBeyondFourteenHoursAreWrittenInUTC() {
        let point = TrackPoint(latitude: 1, longitude: 2, time: GPXTime(secondsSince1970: 0, offset: .minutes(15 * 60)))
        let text = GPXWriter.string(GPXDocument(waypoints: [point]))
        #expect(text.contains("<time>1970-01-01T00:00:00Z</time>"))
    }

    @Test func tinyValuesHaveNoExponent() {
        #expect(Self.text.contains("<trkpt lat=\"0.000091697\" lon=\"-0.000005\">"))
        #expect(Self.text.contains("<ele>0.000005</ele>"))
        #expect(Self.text.contains("minlat=\"-0.000091697\""))
        #expect(Self.text.range(of: "[0-9][eE][-+]?[0-9]", options: .regularExpression) == nil)
    }

    @Test func longitude180IsMovedJustInsideTheSchemaRange() {
        #expect(Self.text.contains("<wpt lat=\"-90\" lon=\"179.99999999999997\"/>"))
        #expect(Self.text.contains("maxlon=\"179.99999999999997\""))
    }

    @Test func pointsWithInvalidCoordinatesAndNonFiniteValuesAreLeftOut() throws {
        let document = GPXDocument(waypoints: [
            TrackPoint(latitude: .nan, longitude: 1), TrackPoint(latitude: 91, longitude: 1),
            TrackPoint(latitude: 1, longitude: -180.5), TrackPoint(latitude: 1, longitude: .infinity),
            TrackPoint(latitude: 1, longitude: 2, elevation: .nan, heartRate: .infinity, powerWatts: .nan),
        ])
        let root = try WriterTestXML.parse(GPXWriter.write(document))
        let waypoints = root.writtenChildren("wpt")
        #expect(waypoints.count == 1)
        #expect(waypoints.first?.writtenElementChildren.isEmpty == true)
    }

    @Test func emailIsSplitIntoIdAndDomain() throws {
        #expect(Self.text.contains("<email id=\"jane.doe\" domain=\"example.com\"/>"))
        #expect(GPXWriter.splitEmail("a@b@c.org") == ("a@b", "c.org"))
        #expect(GPXWriter.splitEmail("nobody") == ("nobody", ""))
    }

    @Test func copyrightYearIsAGYear() {
        #expect(Self.text.contains("<year>2013</year>"))
        let early = GPXDocument(metadata: GPXMetadata(copyright: GPXCopyright(author: "A", year: 800)))
        #expect(GPXWriter.string(early).contains("<year>0800</year>"))
    }

    @Test func garminExtensionsUseTrackPointExtensionV2AndPowerExtension() throws {
        let root = try WriterTestXML.parse(Self.output)
        let extensions = try #require(root.writtenChildren("wpt").first?.writtenChildren("extensions").first)
        let trackPointExtension = try #require(extensions.writtenElementChildren.first)
        #expect(trackPointExtension.namespace == GPXWriter.trackPointExtensionNamespace)
        #expect(trackPointExtension.localName == "TrackPointExtension")
        #expect(trackPointExtension.writtenElementChildren.map(\.localName) == ["atemp", "wtemp", "depth", "hr", "cad", "speed", "course"])
        #expect(trackPointExtension.writtenElementChildren.map(\.text) == ["-3.5", "11", "0.25", "142", "88", "4.25", "271.5"])
        let power = extensions.writtenElementChildren[1]
        #expect(power.namespace == GPXWriter.powerExtensionNamespace && power.localName == "PowerInWatts" && power.text == "251")
    }

    @Test func valuesTheSchemaCannotHoldGoToTheBikerideNamespace() throws {
        let root = try WriterTestXML.parse(Self.output)
        let unlisted = root.writtenChildren("trk")[0].writtenChildren("trkseg")[0].writtenChildren("trkpt")[1]
        #expect(!unlisted.writtenElementChildren.map(\.localName).contains("fix"))
        #expect(!unlisted.writtenElementChildren.map(\.localName).contains("magvar"))
        let extensions = try #require(unlisted.writtenChildren("extensions").first)
        let bikeride = extensions.writtenElementChildren.filter { $0.namespace == GPXWriter.bikerideNamespace }
        #expect(bikeride.map(\.localName) == ["fix", "magvar", "sat", "dgpsid"])
        #expect(bikeride.map(\.text) == ["something_not_in_the_spec", "370", "-1", "2000"])
        let negativeRoute = root.writtenChildren("rte")[1].writtenChildren("extensions").first?.writtenElementChildren.first
        #expect(negativeRoute?.namespace == GPXWriter.bikerideNamespace && negativeRoute?.localName == "number")
        #expect(negativeRoute?.text == "-4")
        let emptyFix = GPXWriter.string(GPXDocument(waypoints: [TrackPoint(latitude: 1, longitude: 2, fix: "")]))
        #expect(emptyFix.contains("<bikeride:fix></bikeride:fix>"))
    }

    @Test func extensionTreesKeepTheirNamespacesTextAndAttributes() throws {
        let root = try WriterTestXML.parse(Self.output)
        let extensions = try #require(root.writtenChildren("wpt").first?.writtenChildren("extensions").first)
        // After the two Garmin elements come the kept trees, each once.
        var kept = Array(extensions.writtenElementChildren.dropFirst(2))
        // What the reader will do: unwrap bikeride:extension.
        kept = kept.map { element in
            if element.namespace == GPXWriter.bikerideNamespace && element.localName == "extension" {
                #expect(element.writtenElementChildren.count == 1)
                return element.writtenElementChildren[0]
            }
            return element
        }
        #expect(kept == WriterSamples.extensionTrees.map(\.withoutPrefixHints))
    }

    @Test func namespacesAreDeclaredOnTheRootWithTheFilePrefixWhenFree() {
        let rootTag = Self.text.split(separator: "\n")[1]
        #expect(rootTag.contains("xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\""))
        #expect(rootTag.contains("xmlns:pwr=\"http://www.garmin.com/xmlschemas/PowerExtension/v1\""))
        #expect(rootTag.contains("xmlns:bikeride=\"https://bikeride.dev/xmlns/gpx/1\""))
        #expect(rootTag.contains("xmlns:ext=\"https://example.com/ns/custom\""))
        // v1 wanted `gpxtpx`, which v2 holds; `xmlbad` is reserved: both get numbered prefixes.
        #expect(rootTag.contains("xmlns:ns1=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\""))
        #expect(rootTag.contains("xmlns:ns2=\"urn:example:other\""))
        #expect(Self.text.contains("<security xmlns=\"\">Open</security>"))
        #expect(Self.text.contains("<ns2:note xml:lang=\"en\">"))
        // Only the namespaces a document uses are declared.
        let plain = GPXWriter.string(GPXDocument(waypoints: [TrackPoint(latitude: 1, longitude: 2)]))
        #expect(!plain.contains("xmlns:"))
    }

    @Test func streamingInChunksGivesTheSameBytes() throws {
        var chunks: [[UInt8]] = []
        try GPXWriter.write(WriterSamples.everyField, chunkSize: 256) { chunks.append($0) }
        #expect(chunks.count > 3)
        #expect(chunks.dropLast().allSatisfy { $0.count >= 256 })
        #expect(Array(chunks.joined()) == Self.output)
    }

    @Test func writingToAFileHandleGivesTheSameBytes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bikeride-\(UUID().uuidString).gpx")
        FileManager.default.createFile(atPath: url.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        try GPXWriter.write(WriterSamples.everyField, chunkSize: 100, to: handle)
        try handle.close()
        #expect(try Data(contentsOf: url) == Data(Self.output))
    }

    @Test(.enabled(if: WriterTestXML.canValidate, "xmllint or the GPX 1.1 schema is missing (apt-get install libxml2-utils)"))
    func incrementalWriterDeclaresUnannouncedNamespacesWhereUsed() throws {
        var chunks: [[UInt8]] = []
        var writer = GPXWriter(creator: "stream", metadata: GPXMetadata(name: "Big"), rootNamespaces: [:], chunkSize: 64) {
            chunks.append($0)
        }
        writer.writeWaypoint(WriterSamples.fullPoint)
        writer.beginTrack(Track(name: "T"))
        for index in 0..<50 {
            if index % 20 == 0 {
                if index > 0 { writer.endSegment() }
                writer.beginSegment()
            }
            var point = WriterSamples.fullPoint
            point.latitude = Double(index) * 0.001
            point.fix = index == 3 ? "weird" : "3d"
            writer.writeTrackPoint(point)
        }
        try writer.finish(extensions: [WriterSamples.extensionTrees[0]])  // closes the segment and the track
        let output = Array(chunks.joined())
        #expect(try WriterTestXML.schemaErrors(output) == nil)
        let root = try WriterTestXML.parse(output)
        let track = try #require(root.writtenChildren("trk").first)
        #expect(track.writtenChildren("trkseg").map { $0.writtenChildren("trkpt").count } == [20, 20, 10])
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.contains("<gpxtpx:TrackPointExtension xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\">"))
        #expect(text.contains("<bikeride:fix xmlns:bikeride=\"https://bikeride.dev/xmlns/gpx/1\">weird</bikeride:fix>"))
        let point = try #require(track.writtenChildren("trkseg").first?.writtenChildren("trkpt").first?.writtenChildren("extensions").first)
        #expect(Array(point.writtenElementChildren.dropFirst(2)).count == WriterSamples.extensionTrees.count)
    }

    @Test func sinkErrorsAreRethrownByFinishAndStopOutput() {
        struct DiskFull: Error {}
        var calls = 0
        #expect(throws: DiskFull.self) {
            try GPXWriter.write(WriterSamples.everyField, chunkSize: 64) { _ in
                calls += 1
                throw DiskFull()
            }
        }
        #expect(calls == 1)
    }
}
