import Foundation
@testable import RideKit
import TestSupport
import Testing

/// Best efforts of a device file without positions (an indoor trainer): from the device's distance, time, power and
/// heart rate records, checked against a ride whose every figure is known by construction (`IndoorRideFIT`).
@Suite struct DeviceEffortTests {
    static func value(_ efforts: BestEfforts?, _ key: EffortKey) -> Double? { efforts?.efforts.first { $0.key == key }?.value }

    @Test func anIndoorRideHasTheEffortsItWasBuiltWith() throws {
        let activity = try FITReader.read(IndoorRideFIT.bytes())
        #expect(!activity.hasPositions)
        #expect(activity.totals?.distanceMeters == IndoorRideFIT.totalMeters)
        let efforts = try #require(activity.efforts)
        // Fastest times on moving time, the distances of every kind (the track's kind picks its own).
        let expected: [(EffortKey, Double)] = [
            (.fastest400m, 40), (.fastest1km, 100), (.fastest1mi, 160.9344), (.fastest5km, 800),
            (.power5s, 300), (.power1min, 300), (.power5min, 300), (.heartRate5s, 170), (.heartRate1min, 170), (.heartRate5min, 170),
        ]
        for (key, truth) in expected {
            let measured = try #require(Self.value(efforts, key), "\(key)")
            #expect(abs(measured - truth) < 1e-6, "\(key): \(measured), not \(truth)")
        }
        // 9,990 m in all: no 10 km; no stretch of the timer lasts 20 minutes: no 20-minute power or heart rate.
        for key in [EffortKey.fastest10km, .power20min, .power60min, .heartRate20min] {
            #expect(Self.value(efforts, key) == nil, "\(key)")
        }
    }

    /// The figures of a track without positions take the device's efforts, the kind's distances only, and the
    /// totals from the device's figures.
    @Test func theTracksFiguresTakeTheKindsDistances() throws {
        let activity = try FITReader.read(IndoorRideFIT.bytes())
        let measurements = try #require(DeviceMeasurements(activity))
        let ride = TrackStats(activity: .ride).fillingIn(from: measurements)
        #expect(ride.distanceMeters == IndoorRideFIT.totalMeters && ride.movingSeconds == IndoorRideFIT.timerSeconds)
        #expect(Self.value(ride.efforts, .fastest1km) == 100)
        #expect(Self.value(ride.efforts, .fastest400m) == nil)
        #expect(Self.value(ride.efforts, .longestDistance) == IndoorRideFIT.totalMeters)
        #expect(Self.value(ride.efforts, .longestMovingTime) == IndoorRideFIT.timerSeconds)
        #expect(Self.value(ride.efforts, .power5min) == 300)
        let run = TrackStats(activity: .run).fillingIn(from: measurements)
        #expect(Self.value(run.efforts, .fastest400m) == 40)
        #expect(Self.value(run.efforts, .fastest20km) == nil)
        // Stored and read back as the store keeps it.
        let decoded = try JSONDecoder().decode(DeviceMeasurements.self, from: JSONEncoder().encode(measurements))
        #expect(decoded == measurements)
        // A track with positions keeps its own figures.
        var withPoints = TrackStats(activity: .ride)
        withPoints.pointCount = 2
        #expect(withPoints.fillingIn(from: measurements) == withPoints)
    }

    /// A real indoor trainer's file: power and heart-rate efforts that a brute-force mean over its records agrees with.
    @Test func aRealIndoorTrainerFileAgreesWithABruteForceMean() throws {
        let bytes = try Fixtures.bytes("fit/python-fitparse/sample-activity-indoor-trainer.fit")
        let activity = try FITReader.read(bytes)
        #expect(!activity.hasPositions)
        // The records' times and power, read with the decoder, then every 60 s window by brute force (a value holds
        // over the second that ends at it; runs break at gaps over 30 s, as the effort series does).
        var samples: [(Double, Double)] = []
        _ = try bytes.withUnsafeBytes { raw in
            try FITDecoder.decode(raw) { message in
                if message.globalNumber == FITProfile.Message.record, let time = message.timestamp, let power = message.double(7) {
                    samples.append((Double(time), power))
                }
            }
        }
        guard samples.count > 120 else { return }
        var best: Double?
        for end in samples.indices {
            var integral = 0.0
            var index = end
            while index > 0, samples[end].0 - samples[index - 1].0 <= 60, samples[index].0 - samples[index - 1].0 <= 30 {
                integral += samples[index].1 * (samples[index].0 - samples[index - 1].0)
                index -= 1
            }
            if samples[end].0 - samples[index].0 == 60 { best = max(best ?? 0, integral / 60) }
        }
        let measured = Self.value(activity.efforts, .power1min)
        if let best { #expect(abs((measured ?? -1) - best) < 1e-6, "\(String(describing: measured)) vs \(best)") }
    }
}
