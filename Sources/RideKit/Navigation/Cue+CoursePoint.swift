extension Cue {
    /// The cue as a Garmin course point type: the `course_point` values of the FIT SDK's profile, in Garmin
    /// Connect's spelling ("Left", "SlightLeft", "SharpRight", "UTurn" …), for a GPX `wpt` `<type>` or a FIT or
    /// TCX course. TCX knows only "Left", "Right" and "Straight": use `tcxPointType` there.
    ///
    ///     cue.coursePointType   // "SharpLeft" for a sharp left
    public var coursePointType: String {
        let side = direction == .left ? "Left" : "Right"
        switch severity {
        case .slight: return "Slight" + side
        case .turn: return side
        case .sharp: return "Sharp" + side
        case .uturn: return "UTurn"
        }
    }

    /// The cue as a TCX `CoursePoint` `PointType`, which has only left and right for turns.
    public var tcxPointType: String { direction == .left ? "Left" : "Right" }
}
