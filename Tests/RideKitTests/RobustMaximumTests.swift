import Testing
@testable import RideKit

/// The maximum that one bad value cannot set, from empty to many values, over one segment and several.
@Suite struct RobustMaximumTests {
    static func maximum(_ segments: [Double]...) -> Double {
        var maximum = RobustMaximum()
        for segment in segments {
            for value in segment { maximum.add(value) }
            maximum.endSegment()
        }
        return maximum.value
    }

    @Test func emptyIsZero() {
        #expect(RobustMaximum().value == 0)
        #expect(Self.maximum([]) == 0)
    }

    @Test func oneOrTwoValuesGiveTheBestOfThem() {
        #expect(Self.maximum([7]) == 7)
        #expect(Self.maximum([7, 9]) == 9)
    }

    @Test func threeOrFourValuesIgnoreOneSpike() {
        #expect(Self.maximum([8, 30, 8]) == 8)
        #expect(Self.maximum([8, 8, 30, 9]) == 9)
        // A real peak held over two values counts.
        #expect(Self.maximum([8, 12, 12, 8]) == 12)
    }

    @Test func fiveOrMoreValuesIgnoreTwoSpikesInARow() {
        #expect(Self.maximum([5, 6, 30, 31, 6, 5, 6, 6]) == 6)
        // Three values in a row are a speed that lasted.
        #expect(Self.maximum([5, 6, 12, 12, 12, 6, 5]) == 12)
    }

    @Test func aRobustSegmentOutranksASingleValue() {
        // The two-value segment's 20 is not robust; a segment of three or more decides.
        #expect(Self.maximum([20, 20], [8, 9, 8]) == 8)
        #expect(Self.maximum([20, 20], [3, 1]) == 20)
    }

    @Test func robustFiguresOfSeveralSegmentsCompete() {
        #expect(Self.maximum([8, 9, 8], [5, 6, 11, 11, 11, 6]) == 11)
    }

    @Test func valueIncludesTheSegmentInProgress() {
        var maximum = RobustMaximum()
        for value in [4.0, 5, 6] { maximum.add(value) }
        #expect(maximum.value == 5)
        #expect(maximum.value == 5)
    }
}
