/// The highest value that lasts, segment by segment: one bad value cannot set it, however few values a
/// segment has, as long as it has three.
///
///     var maximum = RobustMaximum()
///     for speed in [5, 6, 30, 6, 5, 7, 6] { maximum.add(speed) }   // 30 is one bad value
///     maximum.endSegment()
///     maximum.value   // 6: the best median of five successive values
///
/// Per segment, the maximum of the running median of
/// - five successive values, when the segment has five or more (a value must be matched by two others
///   among five to count; a burst of two bad values in a row is ignored);
/// - three successive values, when it has three or four (sparse tracks, fixes minutes apart: one bad value
///   is ignored);
/// - one value, when it has one or two: nothing to compare with, so the best single value, which is not
///   robust — it is used only when no segment has three values.
/// `value` is the best robust figure over all segments, or, without any, the best single value.
/// Memory: five values.
struct RobustMaximum {
    private var recent = (0.0, 0.0, 0.0, 0.0, 0.0)
    /// Values in the current segment.
    private var count = 0
    private var segmentMedianOfFive = 0.0
    private var segmentMedianOfThree = 0.0
    private var segmentSingle = 0.0
    /// Over ended segments: the best robust figure (median of five or of three) and the best single value.
    private var robust = 0.0
    private var single = 0.0

    /// The best robust figure so far, the current segment included; or the best single value if there is none.
    var value: Double {
        var copy = self
        copy.endSegment()
        return copy.robust > 0 ? copy.robust : copy.single
    }

    mutating func add(_ value: Double) {
        recent = (recent.1, recent.2, recent.3, recent.4, value)
        count += 1
        segmentSingle = max(segmentSingle, value)
        if count >= 3 { segmentMedianOfThree = max(segmentMedianOfThree, Self.median(recent.2, recent.3, recent.4)) }
        if count >= 5 { segmentMedianOfFive = max(segmentMedianOfFive, Self.medianOfFive(recent)) }
    }

    /// Ends the segment: no run of values spans a pause.
    mutating func endSegment() {
        if count >= 5 {
            robust = max(robust, segmentMedianOfFive)
        } else if count >= 3 {
            robust = max(robust, segmentMedianOfThree)
        } else {
            single = max(single, segmentSingle)
        }
        count = 0
        segmentMedianOfFive = 0
        segmentMedianOfThree = 0
        segmentSingle = 0
    }

    private static func median(_ a: Double, _ b: Double, _ c: Double) -> Double {
        max(min(a, b), min(max(a, b), c))
    }

    /// The middle of five values, by a fixed sorting network.
    private static func medianOfFive(_ values: (Double, Double, Double, Double, Double)) -> Double {
        var values = values
        func order(_ a: inout Double, _ b: inout Double) {
            if a > b { swap(&a, &b) }
        }
        order(&values.0, &values.1)
        order(&values.3, &values.4)
        order(&values.2, &values.4)
        order(&values.2, &values.3)
        order(&values.0, &values.3)
        order(&values.0, &values.2)
        order(&values.1, &values.4)
        order(&values.1, &values.3)
        order(&values.1, &values.2)
        return values.2
    }
}
