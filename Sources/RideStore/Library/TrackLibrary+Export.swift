import Foundation
import RideKit

extension TrackLibrary {
    /// The tracks as one GPX document: every waypoint, route and `trk` of each, in the order given. The
    /// file's metadata is kept when all tracks share it (tracks of one import do), else left out.
    ///
    /// Exporting all the tracks of one imported file gives back that file's data, every field and extension.
    public func document(for ids: [TrackID]) async throws -> GPXDocument {
        var stored: [StoredTrack] = []
        for id in ids {
            guard let track = try await store.track(id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "track", id: id.rawValue)
            }
            stored.append(track)
        }
        return try Self.mergedDocument(stored)
    }

    static func mergedDocument(_ tracks: [StoredTrack]) throws -> GPXDocument {
        guard let first = tracks.first else { return GPXDocument(creator: GPXWriter.defaultCreator) }
        var document = try first.content.document()
        for track in tracks.dropFirst() {
            let next = try track.content.document()
            document.waypoints += next.waypoints
            document.routes += next.routes
            document.tracks += next.tracks
            if next.metadata != document.metadata { document.metadata = GPXMetadata() }
            if next.extensions != document.extensions { document.extensions = [] }
            if next.creator != document.creator { document.creator = GPXWriter.defaultCreator }
            if next.version != document.version { document.version = "1.1" }
        }
        return document
    }

    /// The bytes of a document in a format. `.gpx436` holds one track: the tracks' segments are joined, and
    /// the figures (when given) fill its `distance` and `feetClimbed`.
    public static func encode(_ document: GPXDocument, as format: TrackFileFormat, stats: TrackStats? = nil) throws -> Data {
        switch format {
        case .gpx: return GPXWriter.data(document, creator: document.creator)
        case .gpx436: return try JSONTrackFormat.encode(document, distanceMeters: stats?.distanceMeters, ascentMeters: stats?.ascentMeters)
        case .geojson: return GeoJSONWriter.data(document)
        case .fit:
            // A course for a bike computer: the line, and bikeride's cues as course points.
            let points = document.routeLinePoints
            let cues = TurnDetector.cues(along: points.map(\.coordinate))
            let name = TrackFileFormat.trackName(
                firstTrack: document.tracks.first?.name, metadata: document.metadata.name, firstRoute: document.routes.first?.name)
            return Data(FITCourseWriter.data(name: name, points: points, cues: cues, kind: TrackKind(gpxType: document.tracks.first?.type ?? "") ?? .ride))
        case .tcx:
            throw RideStoreError.unsupported("bikeride reads TCX but writes GPX, .gpx436, GeoJSON or a FIT course")
        }
    }

    /// Writes the tracks into one file (atomically: the file appears whole or not at all).
    public func export(_ ids: [TrackID], as format: TrackFileFormat, to file: URL) async throws {
        let document = try await document(for: ids)
        var stats: TrackStats?
        if ids.count == 1, format == .gpx436 { stats = try await store.track(id: ids[0], userID: userID)?.stats }
        try Self.write(try Self.encode(document, as: format, stats: stats), to: file)
    }

    /// Writes each track to a file of its own in `folder`, named from its date and name (as in the documents
    /// folder); returns the files in the order of `ids`.
    public func exportEach(_ ids: [TrackID], as format: TrackFileFormat, into folder: URL) async throws -> [URL] {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RideStoreError.io(path: folder.path, reason: "cannot create the folder: \(Self.describe(error))")
        }
        var taken = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.map { $0.lowercased() } ?? [])
        var files: [URL] = []
        for id in ids {
            guard let track = try await store.track(id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "track", id: id.rawValue)
            }
            let name = SafeFileName.make(for: track.summary, extension: format.fileExtension, taken: taken)
            taken.insert(name.lowercased())
            let file = folder.appending(path: name)
            try Self.write(try Self.encode(try track.content.document(), as: format, stats: track.stats), to: file)
            files.append(file)
        }
        return files
    }

    /// Places as GPX waypoints (all of the user's when `ids` is nil), each with its notes in `desc`.
    public func placesDocument(_ ids: [PlaceID]? = nil) async throws -> GPXDocument {
        var places: [Place] = []
        if let ids {
            for id in ids {
                guard let place = try await store.place(id: id, userID: userID) else {
                    throw RideStoreError.notFound(kind: "place", id: id.rawValue)
                }
                places.append(place)
            }
        } else {
            places = try await store.places(PlaceQuery(order: .name, limit: .max), userID: userID)
        }
        var waypoints: [Waypoint] = []
        for place in places {
            waypoints.append(place.waypoint(notes: try await store.notes(placeID: place.id, userID: userID)))
        }
        return GPXDocument(creator: GPXWriter.defaultCreator, waypoints: waypoints)
    }

    static func write(_ data: Data, to file: URL) throws {
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw RideStoreError.io(path: file.path, reason: "cannot write: \(describe(error))")
        }
    }
}
