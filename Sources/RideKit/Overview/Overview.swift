import Foundation

/// A year of activities at a glance: totals per week, month and year per kind, a calendar of the days ridden, the
/// year against the one before by ISO week, weekly goals with this week's progress, and the Eddington number.
///
/// Days are the local days of the activities (`LocalStartTime`: the file's own offset, else the time zone at the
/// start); weeks are ISO 8601 weeks (Monday first; week 1 holds the year's first Thursday), computed by day
/// arithmetic (`CalendarPeriod`), so that every platform gives the same answer.
public struct Overview: Sendable, Hashable, Codable {
    /// One activity as the overview needs it.
    public struct Activity: Sendable, Hashable {
        public var id: String
        public var kind: TrackKind
        public var start: GPXTime
        /// For an activity written in UTC: its local day from the time zone here (`TimeZoneGrid`).
        public var latitude: Double?
        public var longitude: Double?
        public var distanceMeters: Double
        public var movingSeconds: Double
        public var ascentMeters: Double

        public init(
            id: String, kind: TrackKind, start: GPXTime, latitude: Double? = nil, longitude: Double?, distanceMeters: Double,
            movingSeconds: Double, ascentMeters: Double
        ) {
            self.id = id
            self.kind = kind
            self.start = start
            self.latitude = latitude
            self.longitude = longitude
            self.distanceMeters = distanceMeters
            self.movingSeconds = movingSeconds
            self.ascentMeters = ascentMeters
        }

        /// Days since 1970-01-01 of the local day it started.
        public var localDay: Int64 {
            let local = LocalStartTime(start: start, latitude: latitude, longitude: longitude).time
            return CalendarPeriod.floorDivide(local.secondsSince1970 + Int64(local.offsetMinutes) * 60, 86_400)
        }
    }

    /// Sums of one kind over a period.
    public struct Totals: Sendable, Hashable, Codable {
        public var kind: TrackKind
        public var count = 0
        public var distanceMeters = 0.0
        public var movingSeconds = 0.0
        public var ascentMeters = 0.0

        public init(kind: TrackKind) { self.kind = kind }

        mutating func add(_ activity: Activity) {
            count += 1
            distanceMeters += activity.distanceMeters
            movingSeconds += activity.movingSeconds
            ascentMeters += activity.ascentMeters
        }
    }

    /// A period (the year, a month, an ISO week) with its totals per kind (kinds without activity left out).
    public struct Period: Sendable, Hashable, Codable {
        /// `2024`, `2024-05`, `2024-W18`.
        public var label: String
        /// Its first day, `YYYY-MM-DD`.
        public var start: String
        public var kinds: [Totals]
    }

    /// One activity on the calendar.
    public struct CalendarEntry: Sendable, Hashable, Codable {
        public var id: String
        public var kind: TrackKind
        public var distanceMeters: Double
    }

    /// A day with activities.
    public struct CalendarDay: Sendable, Hashable, Codable {
        /// `YYYY-MM-DD`.
        public var date: String
        public var activities: [CalendarEntry]
    }

    /// A weekly goal with this week's progress.
    public struct GoalProgress: Sendable, Hashable, Codable {
        public var kind: TrackKind
        /// `distance` (metres) or `time` (moving seconds).
        public var measure: String
        public var target: Double
        /// What this week holds so far, in the target's unit.
        public var done: Double
        /// `done / target`, may pass 1.
        public var fraction: Double
        /// The week's first day, `YYYY-MM-DD`.
        public var weekStart: String
    }

    /// The Eddington number in one unit: the largest E with E days of at least E units, and how many more such days
    /// the next number needs.
    public struct Eddington: Sendable, Hashable, Codable {
        public var number: Int
        public var daysToNext: Int
    }

    public var year: Int
    /// The year's totals.
    public var totals: Period
    public var months: [Period]
    public var weeks: [Period]
    public var calendar: [CalendarDay]
    /// Cumulative distance (metres) at the end of each ISO week of this year and of the last, index 0 = week 1.
    public var thisYearByWeek: [Double]
    public var lastYearByWeek: [Double]
    public var goals: [GoalProgress]
    /// Over every day of every year, in kilometres and in miles.
    public var eddingtonKilometers: Eddington
    public var eddingtonMiles: Eddington
}

extension Overview {
    /// A goal as the overview takes it: `measure` "distance" (metres) or "time" (seconds).
    public struct Goal: Sendable, Hashable {
        public var kind: TrackKind
        public var measure: String
        public var target: Double

        public init(kind: TrackKind, measure: String, target: Double) {
            self.kind = kind
            self.measure = measure
            self.target = target
        }
    }

    /// The overview of `year` from `activities` (any order), goals measured over the ISO week holding `today`
    /// (days since 1970 of the rider's local day). Linear in the activities (plus sorting the days for Eddington).
    public init(year: Int, activities: [Activity], goals: [Goal], today: Int64) {
        self.year = year
        let yearStart = CalendarPeriod.days(year: Int64(year), month: 1, day: 1)
        let nextYearStart = CalendarPeriod.days(year: Int64(year) + 1, month: 1, day: 1)
        let weekCount = Self.isoWeekCount(year: year)
        let week1 = Self.isoWeek1Monday(year: year)
        let lastWeekCount = Self.isoWeekCount(year: year - 1)
        let lastWeek1 = Self.isoWeek1Monday(year: year - 1)
        let thisWeekMonday = today - CalendarPeriod.floorModulo(today + 3, 7)

        var yearTotals: [TrackKind: Totals] = [:]
        var monthTotals = [[TrackKind: Totals]](repeating: [:], count: 12)
        var weekTotals = [[TrackKind: Totals]](repeating: [:], count: weekCount)
        var days: [Int64: [CalendarEntry]] = [:]
        var thisYear = [Double](repeating: 0, count: weekCount)
        var lastYear = [Double](repeating: 0, count: lastWeekCount)
        var distanceByDay: [Int64: Double] = [:]
        var thisWeek: [TrackKind: Totals] = [:]

        for activity in activities {
            let day = activity.localDay
            distanceByDay[day, default: 0] += activity.distanceMeters
            if day >= thisWeekMonday && day < thisWeekMonday + 7 { thisWeek[activity.kind, default: Totals(kind: activity.kind)].add(activity) }
            let week = Int(CalendarPeriod.floorDivide(day - week1, 7))
            if week >= 0 && week < weekCount {
                weekTotals[week][activity.kind, default: Totals(kind: activity.kind)].add(activity)
                thisYear[week] += activity.distanceMeters
            }
            let lastWeek = Int(CalendarPeriod.floorDivide(day - lastWeek1, 7))
            if lastWeek >= 0 && lastWeek < lastWeekCount { lastYear[lastWeek] += activity.distanceMeters }
            guard day >= yearStart && day < nextYearStart else { continue }
            yearTotals[activity.kind, default: Totals(kind: activity.kind)].add(activity)
            let month = Int(CalendarPeriod.civil(fromDays: day).month) - 1
            monthTotals[month][activity.kind, default: Totals(kind: activity.kind)].add(activity)
            days[day, default: []].append(CalendarEntry(id: activity.id, kind: activity.kind, distanceMeters: activity.distanceMeters))
        }

        func ordered(_ totals: [TrackKind: Totals]) -> [Totals] { TrackKind.allCases.compactMap { totals[$0] } }
        totals = Period(label: String(year), start: Self.date(yearStart), kinds: ordered(yearTotals))
        months = (0..<12).map { month in
            Period(
                label: String(format: "%04d-%02d", year, month + 1),
                start: Self.date(CalendarPeriod.days(year: Int64(year), month: Int64(month + 1), day: 1)), kinds: ordered(monthTotals[month]))
        }
        weeks = (0..<weekCount).map { week in
            Period(label: String(format: "%04d-W%02d", year, week + 1), start: Self.date(week1 + Int64(week) * 7), kinds: ordered(weekTotals[week]))
        }
        calendar = days.keys.sorted().map { CalendarDay(date: Self.date($0), activities: days[$0]!) }
        for index in thisYear.indices.dropFirst() { thisYear[index] += thisYear[index - 1] }
        for index in lastYear.indices.dropFirst() { lastYear[index] += lastYear[index - 1] }
        thisYearByWeek = thisYear
        lastYearByWeek = lastYear
        self.goals = goals.map { goal in
            let totals = thisWeek[goal.kind] ?? Totals(kind: goal.kind)
            let done = goal.measure == "time" ? totals.movingSeconds : totals.distanceMeters
            return GoalProgress(
                kind: goal.kind, measure: goal.measure, target: goal.target, done: done, fraction: goal.target > 0 ? done / goal.target : 0,
                weekStart: Self.date(thisWeekMonday))
        }
        let dailyMeters = Array(distanceByDay.values)
        eddingtonKilometers = Self.eddington(dailyDistances: dailyMeters.map { $0 / 1000 })
        eddingtonMiles = Self.eddington(dailyDistances: dailyMeters.map { $0 / 1609.344 })
    }

    /// The largest E with at least E days of at least E (in the distances' unit), and how many more days of at
    /// least E + 1 the next number needs.
    ///
    ///     Overview.eddington(dailyDistances: [5, 3, 3, 1]).number  // 3: three days of 3 or more
    public static func eddington(dailyDistances: [Double]) -> Eddington {
        let sorted = dailyDistances.filter { $0.isFinite }.sorted(by: >)
        var number = 0
        while number < sorted.count && sorted[number] >= Double(number + 1) { number += 1 }
        let next = Double(number + 1)
        var atLeastNext = 0
        while atLeastNext < sorted.count && sorted[atLeastNext] >= next { atLeastNext += 1 }
        return Eddington(number: number, daysToNext: number + 1 - atLeastNext)
    }

    /// The Monday of ISO week 1 of `year`: the week holding 4 January.
    static func isoWeek1Monday(year: Int) -> Int64 {
        let january4 = CalendarPeriod.days(year: Int64(year), month: 1, day: 4)
        return january4 - CalendarPeriod.floorModulo(january4 + 3, 7)
    }

    /// 52 or 53.
    static func isoWeekCount(year: Int) -> Int { Int((isoWeek1Monday(year: year + 1) - isoWeek1Monday(year: year)) / 7) }

    /// `YYYY-MM-DD` of a day since 1970.
    static func date(_ day: Int64) -> String {
        let (y, m, d) = CalendarPeriod.civil(fromDays: day)
        return String(format: "%04d-%02d-%02d", Int(y), Int(m), Int(d))
    }

    /// The Gregorian year of a day since 1970.
    public static func year(ofDay day: Int64) -> Int { Int(CalendarPeriod.civil(fromDays: day).year) }

    /// Days since 1970 of a `Date`'s day in a zone `utcOffsetMinutes` east of UTC.
    public static func day(of secondsSince1970: Double, utcOffsetMinutes: Int) -> Int64 {
        CalendarPeriod.floorDivide(Int64(secondsSince1970.rounded(.down)) + Int64(utcOffsetMinutes) * 60, 86_400)
    }
}
