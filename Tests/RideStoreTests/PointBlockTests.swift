import Foundation
import Testing

import RideKit
@testable import RideStore

/// Packing points in blocks gives back exactly the points, whatever they hold; a damaged block is an error.
@Suite struct PointBlockTests {
    static func roundTrip(_ points: [TrackPoint], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let packed = PackedPoints(points)
        #expect(packed.count == points.count, sourceLocation: sourceLocation)
        let stored = PackedPoints(blocks: packed.packedBlocks)
        let back = try stored.points()
        #expect(back.count == points.count, sourceLocation: sourceLocation)
        for (index, (a, b)) in zip(back, points).enumerated() where a != b || a.latitude.bitPattern != b.latitude.bitPattern
            || a.longitude.bitPattern != b.longitude.bitPattern || a.elevation?.bitPattern != b.elevation?.bitPattern
        {
            Issue.record("point \(index) differs:\n  stored: \(b)\n  back:   \(a)", sourceLocation: sourceLocation)
            return
        }
    }

    @Test(arguments: [0, 1, 2, 1023, 1024, 1025, 5000])
    func ridesOfEverySizeComeBack(_ count: Int) throws {
        try Self.roundTrip(GeneratedRide.document(points: count).tracks[0].segments[0].points)
    }

    @Test func valuesThatAreNotShortDecimalsAreKeptBitForBit() throws {
        let points = [
            TrackPoint(latitude: 0.1 + 0.2, longitude: -0.0, elevation: -0.0),
            TrackPoint(latitude: 89.999999999999, longitude: 179.99999999999997, elevation: 1e300),
            TrackPoint(latitude: -90, longitude: -180, elevation: Double.leastNonzeroMagnitude),
            TrackPoint(latitude: 1.0 / 3.0, longitude: .pi, elevation: 8848.86, speedMetersPerSecond: .greatestFiniteMagnitude),
            TrackPoint(latitude: 45.123456789, longitude: 7.1, heartRate: 0, cadence: -0.0, powerWatts: 1e-9),
        ]
        try Self.roundTrip(points)
        let back = try PackedPoints(points).points()
        #expect(back[0].longitude.sign == .minus && back[0].elevation?.sign == .minus)
        // NaN is never stored by an import, but the codec keeps its bits anyway.
        let nan = Double(bitPattern: 0x7FF8_0000_0000_1234)
        let stored = try PackedPoints([TrackPoint(latitude: 1, longitude: 2, elevation: nan)]).points()
        #expect(stored[0].elevation?.bitPattern == nan.bitPattern)
    }

    @Test func timesKeepOffsetDigitsAndOddValues() throws {
        let times: [GPXTime?] = [
            GPXTime(secondsSince1970: 1_609_459_200, nanoseconds: 179_000_000, offset: .minutes(75), fractionDigits: 3),
            nil,
            GPXTime(secondsSince1970: 1_609_459_201, offset: .utc),
            GPXTime(secondsSince1970: 1_609_459_202, nanoseconds: 123_456_789, offset: .unspecified, fractionDigits: 9),
            GPXTime(secondsSince1970: 1_609_459_203, nanoseconds: 500_000_000, offset: .minutes(-420), fractionDigits: 1),
            GPXTime(secondsSince1970: -62_135_596_800, offset: .minutes(0)),
            GPXTime(secondsSince1970: 253_402_300_799, nanoseconds: 1, offset: .utc, fractionDigits: 2),
            GPXTime(secondsSince1970: Int64.max / 2, nanoseconds: 7, offset: .utc, fractionDigits: 12),
            GPXTime(secondsSince1970: 0, nanoseconds: 0, offset: .minutes(-1), fractionDigits: 0),
        ]
        try Self.roundTrip(times.enumerated().map { TrackPoint(latitude: Double($0.offset), longitude: 0, time: $0.element) })
        // One offset and digit count for the whole block, the common case.
        try Self.roundTrip((0..<50).map {
            TrackPoint(latitude: 1, longitude: 2, time: GPXTime(secondsSince1970: 1_700_000_000 + Int64($0) * 3, offset: .minutes(60)))
        })
    }

    @Test func everyRareFieldAndExtensionTreeIsKept() throws {
        let extensionTree = XMLElementNode(
            namespace: "urn:example", localName: "sensor", prefix: "ex",
            attributes: [XMLAttribute(namespace: "", localName: "id", value: "7"), XMLAttribute(namespace: "urn:other", localName: "x", prefix: "o", value: "")],
            children: [.text("  mixed "), .element(XMLElementNode(namespace: "urn:example", localName: "v", children: [.text("42")])), .text("\n")])
        var rich = TrackPoint(
            latitude: 46.5, longitude: 6.6, elevation: 372.4, time: GPXTime(secondsSince1970: 1_600_000_000), magneticVariation: 1.5,
            geoidHeight: 49.2, name: "Start", comment: "cmt", description: "desc <&>", source: "GPS",
            links: [GPXLink(href: "https://example.org/a?b=c&d", text: "a link", type: "text/html"), GPXLink(href: "x")],
            symbol: "Flag", type: "pt", fix: "3d", satellites: 9, horizontalDilution: 0.8, verticalDilution: 1.2,
            positionDilution: 1.44, ageOfDGPSDataSeconds: 2, dgpsStationID: 1023, speedMetersPerSecond: 4.5, courseDegrees: 181.25,
            heartRate: 140, cadence: 88, temperatureCelsius: 21.5, waterTemperatureCelsius: 14, depthMeters: 2.5, powerWatts: 250,
            extensions: [extensionTree, extensionTree])
        var points = GeneratedRide.document(points: 300).tracks[0].segments[0].points
        points[0] = rich
        rich.name = "Middle"
        points[150] = rich
        points[299].satellites = -1
        points[299].fix = "weird"
        try Self.roundTrip(points)
    }

    @Test func aDamagedBlockIsAnErrorNeverACrash() throws {
        var points = GeneratedRide.document(points: 40).tracks[0].segments[0].points
        points[3].name = "named"
        points[5].extensions = [XMLElementNode(namespace: "urn:x", localName: "e", children: [.text("t")])]
        let block = PointBlock(points: points[...])
        for length in 0..<block.data.count {
            let damaged = PointBlock(pointCount: 40, data: block.data.prefix(length))
            #expect(throws: PointBlockError.self) { try damaged.points() }
        }
        var flipped = block.data
        flipped[0] = 99
        #expect(throws: PointBlockError.unsupportedVersion(99)) { try PointBlock(pointCount: 40, data: flipped).points() }
        var extra = block.data
        extra.append(0)
        #expect(throws: PointBlockError.self) { try PointBlock(pointCount: 40, data: extra).points() }
    }

    @Test func aTypicalRideTakesFewBytesAPoint() {
        let points = GeneratedRide.document(points: 10_000).tracks[0].segments[0].points
        let bytes = PackedPoints(points).packedBlocks.reduce(0) { $0 + $1.data.count }
        #expect(Double(bytes) / 10_000 < 12, "\(Double(bytes) / 10_000) bytes a point")
    }
}

@Suite struct ShortIDTests {
    @Test func idsAreEightCrockfordSymbols() {
        for _ in 0..<1000 {
            let id = ShortID.random()
            #expect(id.rawValue.count == 8)
            #expect(id.rawValue.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains($0) })
            #expect(ShortID(id.rawValue) == id)
        }
    }

    @Test func typingIsForgiving() {
        #expect(ShortID("7k3m-zq0a")?.rawValue == "7K3MZQ0A")
        #expect(ShortID("ILO12345")?.rawValue == "11012345")
        #expect(ShortID("7K3M ZQ0A")?.rawValue == "7K3MZQ0A")
        #expect(ShortID("7K3MZQ0U") == nil)
        #expect(ShortID("7K3MZQ0") == nil)
        #expect(ShortID("7K3MZQ0AB") == nil)
        #expect(ShortID("") == nil)
        #expect(ShortID("../../x") == nil)
    }
}
