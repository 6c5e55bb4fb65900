/// The parts of Garmin's FIT SDK profile that bikeride reads and writes: message numbers (`mesg_num`), field
/// numbers, and the enumerations it maps (sport, file type, course point type). Facts of the format, written
/// out here by name.
public enum FITProfile {
    /// Degrees per semicircle: positions are 32-bit integers where 2³¹ is 180°.
    public static let degreesPerSemicircle = 180.0 / 2_147_483_648.0

    public enum Message {
        public static let fileID: UInt16 = 0
        public static let sport: UInt16 = 12
        public static let session: UInt16 = 18
        public static let lap: UInt16 = 19
        public static let record: UInt16 = 20
        public static let event: UInt16 = 21
        public static let location: UInt16 = 29
        public static let course: UInt16 = 31
        public static let coursePoint: UInt16 = 32
        public static let activity: UInt16 = 34
    }

    public enum FileType {
        public static let activity: Int64 = 4
        public static let course: Int64 = 6
    }

    /// Where a `session` or a `lap` keeps each figure.
    struct FigureFields {
        var startTime: UInt8
        var elapsedTime: UInt8
        var timerTime: UInt8
        var distance: UInt8
        var calories: UInt8
        var averageSpeed: UInt8
        var maxSpeed: UInt8
        var averageHeartRate: UInt8
        var maxHeartRate: UInt8
        var averageCadence: UInt8
        var averagePower: UInt8
        var maxPower: UInt8
        var ascent: UInt8
        var descent: UInt8
        var enhancedAverageSpeed: UInt8
        var enhancedMaxSpeed: UInt8
    }

    static let sessionFields = FigureFields(
        startTime: 2, elapsedTime: 7, timerTime: 8, distance: 9, calories: 11, averageSpeed: 14, maxSpeed: 15, averageHeartRate: 16,
        maxHeartRate: 17, averageCadence: 18, averagePower: 20, maxPower: 21, ascent: 22, descent: 23, enhancedAverageSpeed: 124,
        enhancedMaxSpeed: 125)

    static let lapFields = FigureFields(
        startTime: 2, elapsedTime: 7, timerTime: 8, distance: 9, calories: 11, averageSpeed: 13, maxSpeed: 14, averageHeartRate: 15,
        maxHeartRate: 16, averageCadence: 17, averagePower: 19, maxPower: 20, ascent: 21, descent: 22, enhancedAverageSpeed: 110,
        enhancedMaxSpeed: 111)

    /// The kind a `sport` (and `sub_sport`) says: cycling (2) and e-biking (21) ride, running (1) runs, walking
    /// (11) and hiking (17) walk; nil for the rest (swimming, training …), which the user can set.
    static func kind(sport: Int64?, subSport: Int64?) -> TrackKind? {
        switch sport {
        case 2, 21: return .ride
        case 1: return .run
        case 11, 17: return .walk
        default: return nil
        }
    }

    /// The FIT `sport` of a kind, for a course written out: cycling, running, walking; generic (0) for a route.
    static func sport(of kind: TrackKind?) -> UInt8 {
        switch kind {
        case .ride?: return 2
        case .run?: return 1
        case .walk?: return 11
        case .route?, nil: return 2
        }
    }

    /// `course_point` types 0–25, in Garmin Connect's spelling (as GPX `wpt` `type`s and TCX `PointType`s).
    static let coursePointTypes = [
        "Generic", "Summit", "Valley", "Water", "Food", "Danger", "Left", "Right", "Straight", "FirstAid", "FourthCategory",
        "ThirdCategory", "SecondCategory", "FirstCategory", "HorsCategory", "Sprint", "LeftFork", "RightFork", "MiddleFork",
        "SlightLeft", "SharpLeft", "SlightRight", "SharpRight", "UTurn", "SegmentStart", "SegmentEnd",
    ]

    /// The name of a `course_point` type number ("Generic" for one this list does not know).
    static func coursePointTypeName(_ value: Int64?) -> String? {
        guard let value else { return nil }
        return value >= 0 && value < coursePointTypes.count ? coursePointTypes[Int(value)] : "Generic"
    }

    /// The `course_point` type number of a name (nil for a name this list does not know).
    static func coursePointType(named name: String) -> UInt8? {
        coursePointTypes.firstIndex(of: name).map { UInt8($0) }
    }

    /// The speed of a record's `compressed_speed_distance` (field 8: 12 bits of speed in 1/100 m/s, then 12 of
    /// distance), or nil.
    static func compressedSpeed(_ message: borrowing FITMessage) -> Double? {
        guard let packed = message.bytes(8), packed.count == 3, packed != [0xFF, 0xFF, 0xFF] else { return nil }
        return Double(Int(packed[0]) | Int(packed[1] & 0x0F) << 8) / 100
    }

    /// A few manufacturers by their `manufacturer` number, for the file's `creator`.
    static func manufacturerName(_ value: Int64) -> String? {
        switch value {
        case 1: return "Garmin"
        case 32: return "Wahoo Fitness"
        case 255: return "FIT development"
        case 260: return "Zwift"
        case 265: return "Strava"
        case 289: return "Hammerhead"
        case 294: return "COROS"
        default: return nil
        }
    }
}
