import Foundation
import Testing
import RideKit
import TestSupport

/// The overview against direct computations: Eddington by trying every E, totals by summing what falls in each
/// period, days and weeks by Foundation's Gregorian ISO 8601 calendar.
@Suite struct OverviewTests {
    static func bruteEddington(_ days: [Double]) -> Int {
        var best = 0
        for e in 0...days.count where days.filter({ $0 >= Double(e) }).count >= e { best = e }
        return best
    }

    @Test func eddingtonOnEmptyOneTwoAndMany() {
        #expect(Overview.eddington(dailyDistances: []).number == 0)
        #expect(Overview.eddington(dailyDistances: []).daysToNext == 1)
        #expect(Overview.eddington(dailyDistances: [0.5]).number == 0)
        #expect(Overview.eddington(dailyDistances: [1]).number == 1)
        #expect(Overview.eddington(dailyDistances: [5, 3, 3, 1]).number == 3)
        #expect(Overview.eddington(dailyDistances: [5, 3, 3, 1]).daysToNext == 3)  // one day of 4 or more so far
        var random = SeededGenerator(seed: 5)
        for _ in 0..<50 {
            let days = (0..<Int(random.unit() * 200)).map { _ in (random.unit() * 120).rounded() }
            let result = Overview.eddington(dailyDistances: days)
            #expect(result.number == Self.bruteEddington(days))
            #expect(result.daysToNext == result.number + 1 - days.filter { $0 >= Double(result.number + 1) }.count)
        }
    }

    static var iso: Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }

    @Test func totalsCalendarAndWeeksMatchDirectSums() throws {
        var random = SeededGenerator(seed: 8)
        var activities: [Overview.Activity] = []
        // Two years and a half of activities at random times, in offsets from −10 h to +12 h.
        let from = try GPXTime(parsing: "2023-01-01T00:00:00Z").secondsSince1970
        for index in 0..<600 {
            let seconds = from + Int64(random.unit() * 900 * 86_400)
            let offset = Int(random.unit() * 23 - 10) * 60
            let kind: TrackKind = [.ride, .run, .walk][index % 3]
            activities.append(
                Overview.Activity(
                    id: "t\(index)", kind: kind, start: GPXTime(secondsSince1970: seconds, offset: .minutes(offset)), longitude: nil,
                    distanceMeters: (random.unit() * 80_000).rounded(), movingSeconds: (random.unit() * 10_000).rounded(),
                    ascentMeters: (random.unit() * 900).rounded()))
        }
        let today = Overview.day(of: try GPXTime(parsing: "2024-06-12T12:00:00Z").timeIntervalSince1970, utcOffsetMinutes: 0)
        let overview = Overview(
            year: 2024, activities: activities, goals: [Overview.Goal(kind: .ride, measure: "distance", target: 100_000)], today: today)

        // The local date of each activity by Foundation, in its own offset.
        func local(_ activity: Overview.Activity) -> DateComponents {
            var calendar = Self.iso
            calendar.timeZone = TimeZone(secondsFromGMT: activity.start.offsetMinutes * 60)!
            return calendar.dateComponents([.year, .month, .day, .weekOfYear, .yearForWeekOfYear], from: activity.start.date)
        }
        let inYear = activities.filter { local($0).year == 2024 }
        for kind in [TrackKind.ride, .run, .walk] {
            let mine = inYear.filter { $0.kind == kind }
            let totals = try #require(overview.totals.kinds.first { $0.kind == kind })
            #expect(totals.count == mine.count)
            #expect(abs(totals.distanceMeters - mine.reduce(0) { $0 + $1.distanceMeters }) < 1e-6)
            #expect(abs(totals.ascentMeters - mine.reduce(0) { $0 + $1.ascentMeters }) < 1e-6)
            for month in 1...12 {
                let expected = mine.filter { local($0).month == month }.reduce(0) { $0 + $1.movingSeconds }
                let got = overview.months[month - 1].kinds.first { $0.kind == kind }?.movingSeconds ?? 0
                #expect(abs(got - expected) < 1e-6, "\(kind) month \(month)")
            }
        }
        #expect(overview.weeks.count == 52)  // 2024 has 52 ISO weeks
        for (index, week) in overview.weeks.enumerated() {
            let expected = activities.filter { local($0).yearForWeekOfYear == 2024 && local($0).weekOfYear == index + 1 }
            #expect(week.kinds.reduce(0) { $0 + $1.count } == expected.count, "week \(index + 1)")
        }
        #expect(overview.calendar.reduce(0) { $0 + $1.activities.count } == inYear.count)
        for day in overview.calendar {
            let expected = inYear.filter { String(format: "%04d-%02d-%02d", local($0).year!, local($0).month!, local($0).day!) == day.date }
            #expect(Set(day.activities.map(\.id)) == Set(expected.map(\.id)), "\(day.date)")
        }
        // This year against last, cumulative by ISO week.
        let lastYearTotal = activities.filter { local($0).yearForWeekOfYear == 2023 }.reduce(0) { $0 + $1.distanceMeters }
        #expect(overview.lastYearByWeek.count == 52)
        #expect(abs(overview.lastYearByWeek.last! - lastYearTotal) < 1e-6)
        #expect(zip(overview.thisYearByWeek, overview.thisYearByWeek.dropFirst()).allSatisfy { $0 <= $1 })
        // This week's goal: Monday 10 June to Sunday 16 June 2024.
        let thisWeek = activities.filter { $0.kind == .ride && local($0).yearForWeekOfYear == 2024 && local($0).weekOfYear == 24 }
        #expect(overview.goals.first?.weekStart == "2024-06-10")
        #expect(abs(overview.goals.first!.done - thisWeek.reduce(0) { $0 + $1.distanceMeters }) < 1e-6)
        // Eddington over every day.
        var byDay: [String: Double] = [:]
        for activity in activities {
            let c = local(activity)
            byDay["\(c.year!)-\(c.month!)-\(c.day!)", default: 0] += activity.distanceMeters
        }
        #expect(overview.eddingtonKilometers.number == Self.bruteEddington(byDay.values.map { $0 / 1000 }))
        #expect(overview.eddingtonMiles.number == Self.bruteEddington(byDay.values.map { $0 / 1609.344 }))
    }

    @Test func aYearOf53WeeksAndAUTCRideOnTheLocalDayOfItsTimeZone() throws {
        // 2026 has 53 ISO weeks (it starts on a Thursday).
        let ride = Overview.Activity(
            id: "a", kind: .ride, start: try GPXTime(parsing: "2026-12-31T23:30:00Z"), latitude: 47.37, longitude: 8.54, distanceMeters: 1000,
            movingSeconds: 100, ascentMeters: 0)
        let overview = Overview(year: 2027, activities: [ride], goals: [], today: 0)
        // In Zurich (Europe/Zurich, UTC+01:00 in winter) the local time is 00:30 on 1 January 2027.
        #expect(overview.calendar.map(\.date) == ["2027-01-01"])
        #expect(Overview(year: 2026, activities: [], goals: [], today: 0).weeks.count == 53)
        #expect(overview.lastYearByWeek.count == 53)
        // 1 January 2027 is a Friday: ISO week 53 of 2026.
        #expect(overview.lastYearByWeek.last == 1000)
        #expect(overview.thisYearByWeek.allSatisfy { $0 == 0 })
    }
}
