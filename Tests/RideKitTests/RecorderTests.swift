import RideKit
import TestSupport
import Testing

/// Fixes going east along the equator… no: along a parallel at 37.33° N, `stepMeters` apart, one a second.
private func eastwardFixes(count: Int, stepMeters: Double = 5, firstSequence: Int64 = 1, startSeconds: Int64 = 1_700_000_000,
                           from start: Coordinate = Coordinate(latitude: 37.33, longitude: -122.03)) -> [RecordingFix] {
    (0..<count).map { index in
        let position = start.destination(distanceMeters: Double(index) * stepMeters, bearingDegrees: 90)
        return RecordingFix(
            sequence: firstSequence + Int64(index), latitude: position.latitude, longitude: position.longitude,
            time: GPXTime(secondsSince1970: startSeconds + Int64(index)), horizontalAccuracyMeters: 5)
    }
}

private func startedRecorder(_ options: Recorder.Options = .init()) throws -> Recorder {
    var recorder = Recorder(options: options)
    try recorder.start()
    return recorder
}

@Suite struct RecorderStateTests {
    @Test func startPauseResumeStopFollowTheStateMachine() throws {
        var recorder = Recorder()
        #expect(recorder.state == .idle)
        try recorder.start()
        #expect(recorder.state == .recording)
        try recorder.pause()
        #expect(recorder.state == .paused)
        try recorder.pause()  // repeated: no change
        #expect(recorder.state == .paused)
        try recorder.resume()
        try recorder.resume()
        #expect(recorder.state == .recording)
        try recorder.stop()
        #expect(recorder.state == .stopped)
    }

    @Test func commandsThatDoNotApplyAreRefused() throws {
        var idle = Recorder()
        #expect(throws: RecordingError.invalidTransition(command: "pause", state: .idle)) { try idle.pause() }
        #expect(throws: RecordingError.invalidTransition(command: "stop", state: .idle)) { try idle.stop() }
        #expect(throws: RecordingError.invalidTransition(command: "add fixes to", state: .idle)) {
            try idle.append(eastwardFixes(count: 1))
        }
        var recorder = try startedRecorder()
        #expect(throws: RecordingError.invalidTransition(command: "start", state: .recording)) { try recorder.start() }
        try recorder.stop()
        #expect(throws: RecordingError.invalidTransition(command: "resume", state: .stopped)) { try recorder.resume() }
        #expect(throws: RecordingError.invalidTransition(command: "add fixes to", state: .stopped)) {
            try recorder.append(eastwardFixes(count: 1))
        }
    }

    @Test func pauseStartsANewSegmentAndFixesWhilePausedAreNotStored() throws {
        var recorder = try startedRecorder()
        _ = try recorder.append(eastwardFixes(count: 10))
        try recorder.pause()
        let paused = try recorder.append(eastwardFixes(count: 5, firstSequence: 11, startSeconds: 1_700_000_010))
        #expect(paused.storedCount == 0 && paused.skippedCount == 5 && paused.lastSequence == 15)
        #expect(paused.path.isEmpty)
        try recorder.resume()
        let resumed = try recorder.append(eastwardFixes(count: 10, firstSequence: 16, startSeconds: 1_700_000_100,
                                                        from: Coordinate(latitude: 37.331, longitude: -122.03)))
        #expect(recorder.segments.map(\.points.count) == [10, 10])
        // The new segment's line starts on its own first point, not from where the rider paused.
        #expect(resumed.path.count == 1 && resumed.path[0].segmentIndex == 1 && resumed.path[0].from == nil)
        let stats = recorder.stats
        #expect(stats.segmentCount == 2)
        #expect(abs(stats.distanceMeters - 90) < 1, "two segments of 45 m, the gap not counted: \(stats.distanceMeters)")
        #expect(stats.pausedSeconds == 91)  // from the last fix at +9 s to the first at +100 s
        let track = try recorder.stop()
        #expect(track.segments.count == 2)
    }
}

@Suite struct RecorderBatchTests {
    @Test func aBatchSentTwiceIsStoredOnce() throws {
        var recorder = try startedRecorder()
        let batch = eastwardFixes(count: 20)
        let first = try recorder.append(batch)
        let again = try recorder.append(batch)
        #expect(first.storedCount == 20 && first.duplicateCount == 0)
        #expect(again.storedCount == 0 && again.duplicateCount == 20 && again.path.isEmpty && again.breadcrumbs.isEmpty)
        #expect(again.lastSequence == 20)
        #expect(recorder.segments[0].points.count == 20)
        #expect(again.stats == first.stats)
    }

    @Test func anOlderBatchAfterANewerOneChangesNothing() throws {
        var recorder = try startedRecorder()
        let fixes = eastwardFixes(count: 20)
        _ = try recorder.append(Array(fixes[0..<10]))
        _ = try recorder.append(Array(fixes[10..<20]))
        let late = try recorder.append(Array(fixes[5..<10]))
        #expect(late.storedCount == 0 && late.duplicateCount == 5)
        #expect(recorder.segments[0].points.count == 20)
    }

    @Test func aBatchOverlappingTheLastStoresOnlyTheNewFixes() throws {
        var recorder = try startedRecorder()
        let fixes = eastwardFixes(count: 20)
        _ = try recorder.append(Array(fixes[0..<12]))
        let overlap = try recorder.append(Array(fixes[8..<20]))
        #expect(overlap.storedCount == 8 && overlap.duplicateCount == 4)
        #expect(recorder.segments[0].points.map(\.latitude) == fixes.map(\.latitude))
    }

    @Test func fixesOutOfOrderWithinABatchAreTakenInSequenceOrder() throws {
        var recorder = try startedRecorder()
        let fixes = eastwardFixes(count: 6)
        let update = try recorder.append([fixes[3], fixes[0], fixes[5], fixes[1], fixes[4], fixes[2], fixes[2]])
        #expect(update.storedCount == 6 && update.duplicateCount == 1)
        #expect(recorder.segments[0].points.map(\.longitude) == fixes.map(\.longitude))
        // The camera follows the last fix of the batch in sequence order.
        #expect(update.camera?.center == fixes[5].coordinate)
    }

    @Test(arguments: [
        (RecordingFix(sequence: 1, latitude: 91, longitude: 0), "latitude"),
        (RecordingFix(sequence: 1, latitude: 0, longitude: -180.5), "longitude"),
        (RecordingFix(sequence: 1, latitude: .nan, longitude: 0), "latitude"),
        (RecordingFix(sequence: 1, latitude: 0, longitude: 0, altitudeMeters: .infinity), "altitude"),
        (RecordingFix(sequence: 1, latitude: 0, longitude: 0, horizontalAccuracyMeters: -1), "accuracy"),
        (RecordingFix(sequence: 1, latitude: 0, longitude: 0, speedMetersPerSecond: -3), "speed"),
        (RecordingFix(sequence: -1, latitude: 0, longitude: 0), "sequence"),
    ])
    func anInvalidFixRefusesTheWholeBatch(fix: RecordingFix, field: String) throws {
        var recorder = try startedRecorder()
        let good = eastwardFixes(count: 3, firstSequence: 2)
        #expect {
            try recorder.append(good + [fix])
        } throws: { error in
            guard case .invalidFix(_, let failing, _) = error as? RecordingError else { return false }
            return failing == field
        }
        #expect(recorder.segments.isEmpty && recorder.lastSequence == nil)
    }

    @Test func anOversizeBatchIsRefused() throws {
        var recorder = try startedRecorder()
        #expect(throws: RecordingError.batchTooLarge(count: Recorder.maximumBatchSize + 1, limit: Recorder.maximumBatchSize)) {
            try recorder.append(eastwardFixes(count: Recorder.maximumBatchSize + 1))
        }
    }

    @Test func inaccurateFixesAreAcknowledgedButNotDrawn() throws {
        var recorder = try startedRecorder()
        var fixes = eastwardFixes(count: 4)
        fixes[1].horizontalAccuracyMeters = 1500  // a Wi-Fi position
        let update = try recorder.append(fixes)
        #expect(update.storedCount == 3 && update.skippedCount == 1 && update.lastSequence == 4)
        #expect(update.path[0].coordinates == [fixes[0], fixes[2], fixes[3]].map(\.coordinate))
    }

    @Test func theEmptyBatchAnswersWithTheCurrentFigures() throws {
        var recorder = try startedRecorder()
        let update = try recorder.append([])
        #expect(update.storedCount == 0 && update.camera == nil && update.lastSequence == nil)
    }
}

@Suite struct RecorderViewTests {
    @Test func theCameraIsCentredOnTheBatchsLastFixWithA300MetreRadius() throws {
        var recorder = try startedRecorder()
        let fixes = eastwardFixes(count: 7)
        let update = try recorder.append(fixes)
        let camera = try #require(update.camera)
        #expect(camera.center == fixes[6].coordinate)
        #expect(camera.radiusMeters == 300)
        let bounds = camera.bounds
        let north = Coordinate(latitude: bounds.maxLatitude, longitude: camera.center.longitude)
        let east = Coordinate(latitude: camera.center.latitude, longitude: bounds.maxLongitude)
        #expect(abs(camera.center.distanceMeters(to: north) - 300) < 0.01)
        #expect(abs(camera.center.distanceMeters(to: east) - 300) < 0.5)
    }

    @Test func thePathExtendsFromThePreviousLastPointThroughTheNewOnes() throws {
        var recorder = try startedRecorder()
        let fixes = eastwardFixes(count: 10)
        let first = try recorder.append(Array(fixes[0..<4]))
        #expect(first.path == [PathExtension(segmentIndex: 0, from: nil, coordinates: fixes[0..<4].map(\.coordinate))])
        let second = try recorder.append(Array(fixes[4..<10]))
        #expect(second.path == [PathExtension(segmentIndex: 0, from: fixes[3].coordinate, coordinates: fixes[4..<10].map(\.coordinate))])
    }

    @Test func aBreadcrumbIsDroppedEachTimeTheRiderIsMoreThan50MetresFromTheLast() throws {
        var recorder = try startedRecorder()
        // 1.4 km east in 7 m steps: pins at 0, then at the first fix more than 50 m on: 56, 112, 168 … m.
        let update = try recorder.append(eastwardFixes(count: 201, stepMeters: 7))
        let offsets = update.breadcrumbs.map { $0.coordinate.distanceMeters(to: update.breadcrumbs[0].coordinate) }
        #expect(update.breadcrumbs.count == 1 + 1400 / 56)
        for (index, offset) in offsets.enumerated() {
            #expect(abs(offset - Double(index) * 56) < 0.01)
        }
        for pin in update.breadcrumbs.dropFirst() {
            #expect(abs(pin.distanceMeters - pin.coordinate.distanceMeters(to: update.breadcrumbs[0].coordinate)) < 1)
        }
        let second = update.breadcrumbs[1]
        #expect(second.title == "(\(String(format: "%.5f", second.coordinate.longitude)), \(String(format: "%.5f", second.coordinate.latitude)))")
        #expect(second.subtitle == "56 m")
        #expect(update.breadcrumbs[0].title == "(-122.03000, 37.33000)")
    }

    @Test func standingStillDropsNoBreadcrumbs() throws {
        var recorder = try startedRecorder()
        var random = SeededGenerator(seed: 7)
        let centre = Coordinate(latitude: 37.33, longitude: -122.03)
        let fixes = (0..<300).map { index in
            let jittered = centre.destination(distanceMeters: 4 * random.unit(), bearingDegrees: 360 * random.unit())
            return RecordingFix(sequence: Int64(index + 1), latitude: jittered.latitude, longitude: jittered.longitude,
                                time: GPXTime(secondsSince1970: 1_700_000_000 + Int64(index)), horizontalAccuracyMeters: 8)
        }
        let update = try recorder.append(fixes)
        #expect(update.breadcrumbs.count == 1)
        // The jitter path is over 600 m long; the stats keep next to none of it.
        #expect(update.stats.distanceMeters < 20)
    }

    @Test func breadcrumbsCanBeTurnedOff() throws {
        var recorder = try startedRecorder(Recorder.Options(breadcrumbsEnabled: false))
        #expect(try recorder.append(eastwardFixes(count: 100)).breadcrumbs.isEmpty)
    }

    @Test func imperialSubtitlesAreInFeetAndMiles() throws {
        #expect(UnitSystem.imperial.formatDistance(meters: 100) == "328 ft")
        #expect(UnitSystem.imperial.formatDistance(meters: 1609.344 * 7.666) == "7.67 mi")
        #expect(UnitSystem.metric.formatDistance(meters: 999.4) == "999 m")
        #expect(UnitSystem.metric.formatDistance(meters: 12_345) == "12.35 km")
    }

    @Test func liveFiguresGrowBatchByBatchAndMatchTheWholeRide() throws {
        var recorder = try startedRecorder()
        let fixes = eastwardFixes(count: 601)  // 3 km at 5 m/s
        var distances: [Double] = []
        for start in stride(from: 0, to: fixes.count, by: 7) {
            let update = try recorder.append(Array(fixes[start..<min(start + 7, fixes.count)]))
            distances.append(update.stats.distanceMeters)
            #expect(abs((update.currentSpeedMetersPerSecond ?? 0) - 5) < 0.05 || start == 0)
        }
        #expect(distances == distances.sorted())
        #expect(abs(distances.last! - 3000) < 3000 * 0.001)
        #expect(recorder.stats.movingSeconds == 600)
    }
}
