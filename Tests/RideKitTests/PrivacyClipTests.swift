import Foundation
import Testing
import TestSupport
@testable import RideKit

/// `PrivacyClip` against distances measured independently: `TestGeodesic` below, Vincenty's inverse written
/// here from his 1975 paper (not RideKit's code), on WGS-84.
struct PrivacyClipTests {
    /// A ride from `start` heading `bearing` for `lengthMeters`, a point every `stepMeters`, 5 m/s, as one segment.
    static func ride(from start: Coordinate, bearing: Double, lengthMeters: Double, stepMeters: Double = 10) -> [[TrackPoint]] {
        let count = Int(lengthMeters / stepMeters)
        let t0: Int64 = 1_700_000_000
        return [(0...count).map { index in
            let position = start.destination(distanceMeters: Double(index) * stepMeters, bearingDegrees: bearing)
            return TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: 100,
                              time: GPXTime(secondsSince1970: t0 + Int64(Double(index) * stepMeters / 5)))
        }]
    }

    /// Every shown point is at least each zone's radius from its centre, and no straight line between two shown
    /// points of one segment comes inside a zone (checked on 64 points along each line).
    static func expectNothingShownInside(_ shown: [[TrackPoint]], zones: [PrivacyZone], sourceLocation: SourceLocation = #_sourceLocation) {
        for zone in zones {
            for segment in shown {
                for point in segment {
                    let d = TestGeodesic.distance(zone.center, point.coordinate)
                    #expect(d >= zone.radiusMeters, "a shown point \(d) m from a zone's centre (radius \(zone.radiusMeters))", sourceLocation: sourceLocation)
                }
                for (a, b) in zip(segment, segment.dropFirst()) {
                    var dLon = b.longitude - a.longitude
                    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                    for step in 1..<64 {
                        let f = Double(step) / 64
                        var lon = a.longitude + f * dLon
                        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                        let c = Coordinate(latitude: a.latitude + f * (b.latitude - a.latitude), longitude: lon)
                        #expect(TestGeodesic.distance(zone.center, c) >= zone.radiusMeters, "a drawn line crosses a zone", sourceLocation: sourceLocation)
                    }
                }
            }
        }
    }

    static let zurich = Coordinate(latitude: 47.37, longitude: 8.54)

    @Test func startInsideAZoneIsCut() {
        let ride = Self.ride(from: Self.zurich, bearing: 60, lengthMeters: 5_000)
        let zone = PrivacyZone(center: Self.zurich.destination(distanceMeters: 50, bearingDegrees: 200), radiusMeters: 400)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: 7).clip(ride)
        Self.expectNothingShownInside(shown, zones: [zone])
        #expect(shown.count == 1)
        // The cut moves out by at most a quarter of the radius (plus a step between points).
        let first = TestGeodesic.distance(zone.center, shown[0][0].coordinate)
        #expect(first <= 400 * 1.25 + 10)
        #expect(shown[0].last == ride[0].last)
    }

    @Test func endInsideAZoneIsCut() {
        let ride = Self.ride(from: Self.zurich, bearing: 300, lengthMeters: 6_000)
        let end = ride[0].last!.coordinate
        let zone = PrivacyZone(center: end.destination(distanceMeters: 120, bearingDegrees: 10), radiusMeters: 700)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: 99).clip(ride)
        Self.expectNothingShownInside(shown, zones: [zone])
        #expect(shown.count == 1 && shown[0].first == ride[0].first)
    }

    @Test func aPassThroughAZoneLeavesAGap() {
        let ride = Self.ride(from: Self.zurich, bearing: 90, lengthMeters: 8_000)
        let middle = Self.zurich.destination(distanceMeters: 4_000, bearingDegrees: 90)
        let zone = PrivacyZone(center: middle, radiusMeters: 250)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: 3).clip(ride)
        Self.expectNothingShownInside(shown, zones: [zone])
        // Two pieces, and the gap between them spans the circle: the ride runs through its centre.
        #expect(shown.count == 2)
        let gap = TestGeodesic.distance(shown[0].last!.coordinate, shown[1].first!.coordinate)
        #expect(gap >= 500)
        #expect(shown[0].first == ride[0].first && shown[1].last == ride[0].last)
    }

    @Test func sparsePointsAroundAZoneDoNotDrawALineAcrossIt() {
        // Points 1.5 km apart, none inside the 300 m zone that lies between two of them.
        let ride = Self.ride(from: Self.zurich, bearing: 0, lengthMeters: 9_000, stepMeters: 1_500)
        let zone = PrivacyZone(center: Self.zurich.destination(distanceMeters: 3_750, bearingDegrees: 0), radiusMeters: 300)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: 1).clip(ride)
        #expect(shown.flatMap { $0 }.count == ride[0].count)
        #expect(shown.count == 2)
        Self.expectNothingShownInside(shown, zones: [zone])
    }

    @Test func overlappingZones() {
        let ride = Self.ride(from: Self.zurich, bearing: 45, lengthMeters: 10_000)
        let a = PrivacyZone(center: Self.zurich.destination(distanceMeters: 4_000, bearingDegrees: 45), radiusMeters: 600)
        let b = PrivacyZone(center: Self.zurich.destination(distanceMeters: 4_700, bearingDegrees: 50), radiusMeters: 900)
        let c = PrivacyZone(center: Self.zurich, radiusMeters: 100)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [a, b, c]), seed: 12345).clip(ride)
        Self.expectNothingShownInside(shown, zones: [a, b, c])
        #expect(shown.count == 2)
    }

    @Test func aZoneAcrossTheAntimeridian() {
        // Fiji's Taveuni lies on the 180th meridian: a ride east across it, a zone centred just west of it.
        let start = Coordinate(latitude: -16.8, longitude: 179.95)
        let ride = Self.ride(from: start, bearing: 90, lengthMeters: 12_000)
        #expect(ride[0].contains { $0.longitude < 0 } && ride[0].contains { $0.longitude > 0 })
        let zone = PrivacyZone(center: Coordinate(latitude: -16.8, longitude: 179.999), radiusMeters: 800)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: 77).clip(ride)
        Self.expectNothingShownInside(shown, zones: [zone])
        #expect(shown.count == 2)
        #expect(shown[1].allSatisfy { $0.longitude < 0 })
        // And a zone on the other side, centred east of the meridian, hides points west of it.
        let east = PrivacyZone(center: Coordinate(latitude: -16.8, longitude: -179.999), radiusMeters: 800)
        let shownEast = PrivacyClip(rules: PrivacyRules(zones: [east]), seed: 77).clip(ride)
        Self.expectNothingShownInside(shownEast, zones: [east])
        #expect(shownEast.count == 2)
    }

    @Test func theFirstAndLastMetresAreHidden() {
        let ride = Self.ride(from: Self.zurich, bearing: 120, lengthMeters: 7_000)
        let shown = PrivacyClip(rules: PrivacyRules(hiddenEndMeters: 800), seed: 5).clip(ride)
        let start = ride[0].first!.coordinate, end = ride[0].last!.coordinate
        Self.expectNothingShownInside(shown, zones: [PrivacyZone(center: start, radiusMeters: 800), PrivacyZone(center: end, radiusMeters: 800)])
        #expect(shown.count == 1)
        let cut = TestGeodesic.distance(start, shown[0][0].coordinate)
        #expect(cut <= 800 * 1.25 + 10)
    }

    @Test func aWindingStartStaysHiddenAsTheCrowFlies() {
        // 1 km of riding round a 100 m block near home, then away: the first 600 m along the ride end near home,
        // and the crow-flies rule hides the rest of the block too.
        var points: [TrackPoint] = []
        let home = Self.zurich
        for lap in 0..<3 {
            for corner in 0..<4 {
                let c = home.destination(distanceMeters: 70, bearingDegrees: Double(corner * 90 + 45))
                points.append(TrackPoint(latitude: c.latitude, longitude: c.longitude, time: GPXTime(secondsSince1970: Int64(lap * 4 + corner))))
            }
        }
        points += Self.ride(from: home, bearing: 0, lengthMeters: 3_000)[0].dropFirst()
        let shown = PrivacyClip(rules: PrivacyRules(hiddenEndMeters: 600), seed: 8).clip([points])
        Self.expectNothingShownInside(shown, zones: [PrivacyZone(center: points[0].coordinate, radiusMeters: 600)])
    }

    @Test func theCutIsFixedPerRideAndMovesBetweenRides() {
        let ride = Self.ride(from: Self.zurich, bearing: 60, lengthMeters: 5_000, stepMeters: 2)
        let zone = PrivacyZone(center: Self.zurich, radiusMeters: 400)
        func firstShown(_ seed: UInt64) -> Double {
            TestGeodesic.distance(zone.center, PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: seed).clip(ride)[0][0].coordinate)
        }
        #expect(firstShown(11) == firstShown(11))
        let cuts = (0..<40).map { firstShown(UInt64($0) &* 0x1234_5678_9ABC) }
        #expect(cuts.allSatisfy { $0 >= 400 && $0 <= 502 })
        // Spread over the quarter, not one circle: at least 60 m between the nearest and farthest cut.
        #expect(cuts.max()! - cuts.min()! > 60)
    }

    @Test func livePositionsInsideAZoneAreHidden() {
        let zone = PrivacyZone(center: Self.zurich, radiusMeters: 300)
        let clip = PrivacyClip(rules: PrivacyRules(zones: [zone]), seed: 4)
        #expect(clip.hides(Self.zurich.destination(distanceMeters: 299, bearingDegrees: 10)))
        #expect(!clip.hides(Self.zurich.destination(distanceMeters: 380, bearingDegrees: 10)))
    }

    @Test(arguments: 0..<30) func randomLayoutsShowNothingInside(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed) &+ 1000)
        let start = Coordinate(latitude: random.symmetric(60), longitude: random.symmetric(180))
        // A random walk of 2,000 points, 5–60 m apart.
        var position = start, heading = random.unit() * 360
        var points: [TrackPoint] = []
        for _ in 0..<2_000 {
            points.append(TrackPoint(latitude: position.latitude, longitude: position.longitude))
            heading += random.symmetric(30)
            position = position.destination(distanceMeters: 5 + 55 * random.unit(), bearingDegrees: heading)
        }
        let zones = (0..<4).map { _ in
            PrivacyZone(center: points[Int(random.unit() * 2_000)].coordinate.destination(distanceMeters: random.unit() * 500, bearingDegrees: random.unit() * 360),
                        radiusMeters: 100 + random.unit() * 1_900)
        }
        let hidden = 1_600 * random.unit()
        let shown = PrivacyClip(rules: PrivacyRules(zones: zones, hiddenEndMeters: hidden), seed: random.next()).clip([Array(points[..<1_000]), Array(points[1_000...])])
        Self.expectNothingShownInside(shown, zones: zones + [PrivacyZone(center: points.first!.coordinate, radiusMeters: hidden), PrivacyZone(center: points.last!.coordinate, radiusMeters: hidden)])
    }

    @Test func theFiguresOfWhatIsShownAreMeasuredOnWhatIsShown() {
        let ride = Self.ride(from: Self.zurich, bearing: 90, lengthMeters: 8_000)
        let zone = PrivacyZone(center: Self.zurich.destination(distanceMeters: 4_000, bearingDegrees: 90), radiusMeters: 250)
        let shown = PrivacyClip(rules: PrivacyRules(zones: [zone], hiddenEndMeters: 500), seed: 3).clip(Track(segments: ride.map { TrackSegment(points: $0) }))
        let expected = shown.segments.map { segment in zip(segment.points, segment.points.dropFirst()).map { TestGeodesic.distance($0.coordinate, $1.coordinate) }.reduce(0, +) }.reduce(0, +)
        #expect(expected < 8_000 - 1_000 - 500)
        #expect(abs(shown.stats().distanceMeters - expected) < expected * 0.001)
    }
}

extension TestGeodesic {
    static func distance(_ p: Coordinate, _ q: Coordinate) -> Double { meters(p.latitude, p.longitude, q.latitude, q.longitude) }
}
