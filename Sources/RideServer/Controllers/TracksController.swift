import Foundation
import Hummingbird
import Logging
import RideKit
import RideStore

/// `/api/tracks`: the saved tracks of the store (DESIGN 6), through `TrackLibrary` and the `RideStore`
/// protocol. Answers are the store's model (`TrackSummary`, in its one JSON form) or the server's own shapes
/// (`TrackDetailPayload` …), never the store's records, and they are what `Web/js/tracks.js` reads.
struct TracksController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    /// Archive imports at once (`WorkGates.archiveImports`): a place is taken as soon as an upload says or shows it
    /// is a zip, before it is spooled, and held until its import job ends.
    var archiveGate = WorkGate(width: 2, widthPerKey: 1)

    /// When a refused archive may be sent again.
    static var archiveRetryAfterSeconds: Int { 60 }

    /// The largest file `POST /api/tracks` takes.
    static var uploadLimitBytes: Int { 64 << 20 }
    /// A zip archive (a Strava bulk export of a few thousand rides) may be larger: each entry inside it is still
    /// capped as it inflates (`ArchiveLimits`).
    static var archiveUploadLimitBytes: Int { 2 << 30 }
    static var editBodyLimitBytes: Int { 16 << 10 }
    /// A page holds 50 tracks unless `limit` says otherwise (1…`TrackQuery.maximumLimit`).
    static var defaultPageSize: Int { 50 }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get { request, context in try await list(library.scoped(to: context), request, context) }
        group.get("totals") { request, context in try await totals(library.scoped(to: context), request, context) }
        group.post { request, context in try await upload(library.scoped(to: context), request, context) }
        group.get("{id}") { request, context in try await get(library.scoped(to: context), request, context) }
        group.patch("{id}") { request, context in try await update(library.scoped(to: context), request, context) }
        group.delete("{id}") { request, context in try await delete(library.scoped(to: context), request, context) }
        group.post("{id}/restore") { request, context in try await restore(library.scoped(to: context), request, context) }
        group.get("{id}/profile") { request, context in try await profile(library.scoped(to: context), request, context) }
        group.get("{id}/cues") { request, context in try await cues(library.scoped(to: context), request, context) }
    }

    // MARK: Handlers

    /// `GET /api/tracks?cursor&limit&q`: a page, newest first.
    func list(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> TrackPage {
        let parameters = request.uri.queryParameters
        var limit = Self.defaultPageSize
        if let text = parameters["limit"] {
            guard let value = Int(String(text)), (1...TrackQuery.maximumLimit).contains(value) else {
                throw APIError.badRequest("invalid_value", "limit must be an integer from 1 to \(TrackQuery.maximumLimit)")
            }
            limit = value
        }
        let search = request.uri.formQueryValue("q").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let search, search.count > TrackQuery.maximumSearchLength {
            throw APIError.badRequest("invalid_value", "q is longer than \(TrackQuery.maximumSearchLength) characters")
        }
        let cursor = parameters["cursor"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        var kinds: Set<TrackKind>?
        if let text = parameters["kind"], !text.isEmpty {
            var chosen = Set<TrackKind>()
            for name in text.split(separator: ",").prefix(8) {
                guard let kind = TrackKind(rawValue: String(name)) else {
                    let allowed = TrackKind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw APIError.badRequest("invalid_value", "kind must be one of \(allowed) (several with commas), not \"\(name.prefix(32))\"")
                }
                chosen.insert(kind)
            }
            kinds = chosen
        }
        let page: TrackPage
        do {
            page = try await library.mine.tracks(TrackQuery(search: search, limit: limit, cursor: cursor, kinds: kinds))
        } catch RideStoreError.invalid(let field, let reason) {
            throw APIError.badRequest("invalid_value", "\(field): \(reason)")
        }
        return page
    }

    /// `GET /api/tracks/totals?offset=MINUTES`: the sums of the list's figures for this week (from Monday),
    /// this month and this year, counted in the rider's zone (`offset`: minutes east of UTC, as the browser says;
    /// default UTC). Routes are left out.
    func totals(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> TotalsPayload {
        var offset = 0
        if let text = request.uri.queryParameters["offset"] {
            guard let value = Int(String(text)), (-14 * 60...14 * 60).contains(value) else {
                throw APIError.badRequest("invalid_value", "offset must be minutes east of UTC, from -840 to 840")
            }
            offset = value
        }
        let now = Date()
        let periods = CalendarPeriod.allCases
        let totals = try await library.mine.trackTotals(
            since: periods.map { $0.start(containing: now, utcOffsetMinutes: offset) })
        return TotalsPayload(offsetMinutes: offset, periods: Array(zip(periods, totals)))
    }

    /// `POST /api/tracks?name=FILE`: the body is a GPX, FIT, TCX, `.gpx436` or GeoJSON file (GPX, FIT and TCX also
    /// gzipped), imported in one transaction.
    ///
    /// The body streams to a file in the data directory as it arrives (hashed on the way), so memory does not
    /// grow with the upload; over `uploadLimitBytes` it is refused with 413 as soon as that many bytes came, and
    /// the file is removed. The file is then read as a stream (GPX) and imported, or refused whole (422).
    func upload(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> Response {
        func tooLarge(_ limit: Int) -> APIError {
            APIError(
                .contentTooLarge, code: "body_too_large",
                message: "the file is larger than \(limit >> 20) MiB, the most an upload \(limit == Self.uploadLimitBytes ? "" : "of an archive ")may be; nothing was stored")
        }
        let fileName = request.uri.queryParameters["name"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        // `?waypointsAsPlaces=1`: the file's waypoints become places too (a waypoints-only file: only places).
        var waypointsAsPlaces = false
        if let text = request.uri.queryParameters["waypointsAsPlaces"] {
            guard ["1", "true", "0", "false"].contains(text) else {
                throw APIError.badRequest("invalid_value", "waypointsAsPlaces must be 1, true, 0 or false")
            }
            waypointsAsPlaces = ["1", "true"].contains(text)
        }
        // A length announced over the limit is refused before a byte is read: the archive's limit when the name or
        // the type says zip, else a track file's.
        let saysArchive = fileName?.lowercased().hasSuffix(".zip") == true || request.headers[.contentType] == "application/zip"
        let announcedLimit = saysArchive ? Self.archiveUploadLimitBytes : Self.uploadLimitBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > announcedLimit { throw tooLarge(announcedLimit) }
        // An archive takes its place in the gate before it is spooled: a flood of zips is refused at once, not after
        // gigabytes of them were written to disk.
        var permit: WorkGate.Permit?
        func enterArchiveGate() throws {
            guard permit == nil else { return }
            do {
                permit = try archiveGate.tryEnter(key: library.userID.rawValue)
            } catch {
                let own = archiveGate.running(key: library.userID.rawValue) > 0
                throw APIError(
                    .tooManyRequests, code: "busy",
                    message: (own ? "an archive of yours is being imported already" : "too many archives are being imported at once")
                        + "; send this one when it is done; nothing was stored",
                    retryAfterSeconds: Self.archiveRetryAfterSeconds)
            }
        }
        if saysArchive { try enterArchiveGate() }
        let spool = try library.makeUploadSpool()
        let upload: SpooledUpload
        // The first bytes say whether it is an archive, which may be larger.
        var limit: Int?
        do {
            for try await chunk in request.body {
                if limit == nil, chunk.readableBytes > 0 {
                    let isArchive = chunk.readableBytesView.starts(with: Self.zipSignature)
                    if isArchive { try enterArchiveGate() }
                    limit = isArchive ? Self.archiveUploadLimitBytes : Self.uploadLimitBytes
                }
                guard spool.byteCount + chunk.readableBytes <= limit ?? Self.uploadLimitBytes else { throw tooLarge(limit ?? Self.uploadLimitBytes) }
                try await spool.append(chunk.readableBytesView)
            }
            upload = try await spool.finish()
        } catch {
            spool.discard()
            permit?.release()
            throw error
        }
        guard upload.byteCount > 0 else {
            permit?.release()
            try? FileManager.default.removeItem(at: upload.url)
            throw APIError.badRequest("empty_body", "the body is empty; it must be a GPX, FIT, TCX, .gpx436 or GeoJSON file")
        }
        if upload.head.starts(with: Self.zipSignature) {
            try enterArchiveGate()
            return try await importArchive(library, upload, fileName: fileName, permit: permit, context).response(from: request, context: context)
        }
        // Said to be a zip, but it is not.
        permit?.release()
        guard let format = TrackFileFormat(head: upload.head, fileName: fileName) else {
            try? FileManager.default.removeItem(at: upload.url)
            throw APIError(.unprocessableContent, code: "unsupported_format", message: "the body is not GPX, FIT, TCX, .gpx436 or GeoJSON")
        }
        // A `.gpx.gz` may inflate to 8 times what a plain upload may be, no more: a few MiB of gzip can hold GiB.
        var options = ImportOptions()
        options.maximumInflatedBytes = 8 * Self.uploadLimitBytes
        // Forgiving, as gpx.studio, Strava and Garmin Connect are: a bad point or an unknown element is left out
        // and said in the answer's `warnings`, not a refused file. XML that is not well-formed is refused still.
        options.lenient = true
        options.waypointsAsPlaces = waypointsAsPlaces
        let outcome = try await library.importUpload(
            upload, fileName: fileName ?? "upload.\(format.rawValue)", format: format, options: options)
        switch outcome.result {
        case .imported(_, let tracks, let places):
            context.logger.info("tracks imported", metadata: ["count": "\(tracks.count)", "points": "\(outcome.pointCount)"])
            var headers = HTTPFields()
            if let first = tracks.first { headers[.location] = "/api/tracks/\(first.id.rawValue)" }
            return try EditedResponse(
                status: .created, headers: headers,
                response: UploadPayload(duplicate: false, tracks: tracks, placeIDs: places, report: outcome.readReport)
            ).response(from: request, context: context)
        case .duplicate(let ids):
            var tracks: [TrackSummary] = []
            for id in ids {
                if let summary = try await library.mine.trackSummary(id: id) { tracks.append(summary) }
            }
            return try EditedResponse(status: .ok, response: UploadPayload(duplicate: true, tracks: tracks, report: GPXReadReport()))
                .response(from: request, context: context)
        }
    }

    /// `GET /api/tracks/{id}` (the track with its points), or `{id}.gpx|.gpx436|.geojson|.fit` (a download; `.fit`
    /// is a course with bikeride's cues as course points).
    ///
    /// The track page asks with `?fit=WIDTHxHEIGHT` (its map's size in CSS pixels): the line then comes simplified
    /// for the zoom one closer than the one at which the track fills that map, which draws the same on screen as
    /// every point (no point dropped lies more than half a pixel off the line at the zoom the map opens at) from a
    /// small part of them. `?zoom=Z` simplifies for zoom Z (the page asks so when it is zoomed in further).
    func get(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> Response {
        let parameter = try context.parameters.require("id")
        let (idText, fileExtension) = Self.split(parameter)
        // The track without its points: they are read a page of blocks at a time as the answer needs them.
        let outline = try await Self.track(library, idText)
        guard let fileExtension else {
            let zoom = try Self.detailZoom(request, track: outline.track)
            let efforts = try await library.mine.rankedEfforts(trackID: outline.summary.id)
            let lapMarks = outline.track.device?.laps.isEmpty == false ? [] : try await library.mine.lapMarks(trackID: outline.summary.id)
            let lines = try await library.boundedLines(outline, maximumPoints: StoredTrack.viewPointLimit)
            let waypoints = try await library.boundedWaypoints(outline, maximumPoints: StoredTrack.viewPointLimit)
            // Laps the rider marked are measured on the track's points: every one up to a whole download's limit,
            // every n-th beyond.
            let lapLine = lapMarks.isEmpty ? nil : Track(segments: try await library.boundedLines(
                outline, runs: outline.runs.filter { $0.role == .trackSegment }, maximumPoints: Self.wholeDownloadPointLimit))
            return try TrackDetailPayload(
                outline.track, lines: lines, waypoints: waypoints, lapLine: lapLine, simplifiedForZoom: zoom, efforts: efforts, lapMarks: lapMarks
            ).response(from: request, context: context)
        }
        guard let format = TrackFileFormat(rawValue: fileExtension.lowercased()), format != .tcx else {
            throw APIError.notFound("no download of type .\(fileExtension); there are .gpx, .gpx436, .geojson and .fit (a course)")
        }
        let pointCount = outline.pointCount
        if format == .gpx || format == .geojson, pointCount > Self.wholeDownloadPointLimit, request.uri.queryParameters["zoom"] == nil {
            return try await streamedDownload(library, outline, format: format, request, logger: context.logger)
        }
        guard pointCount <= Self.wholeDownloadPointLimit else {
            throw APIError(
                .contentTooLarge, code: "limit_exceeded",
                message: "this track has \(pointCount) points; .\(format.rawValue)\(request.uri.queryParameters["zoom"] == nil ? "" : " with zoom") is written whole up to \(Self.wholeDownloadPointLimit) points: download it as .gpx or .geojson (streamed)")
        }
        // Up to the limit, the track is read whole (about 150 B a point unpacked).
        guard let track = try await library.mine.track(id: outline.summary.id) else {
            throw APIError.notFound("no track with id \(idText)")
        }
        var document = try track.content.document()
        // The kind the rider set travels with the file, as Strava and Garmin write it (`<type>` of each `trk`).
        document.setActivityType(track.summary.kind)
        if let text = request.uri.queryParameters["cues"] {
            guard ["1", "true"].contains(text) || ["0", "false"].contains(text) else {
                throw APIError.badRequest("invalid_value", "cues must be 1 or 0")
            }
            // The JSON track format has no waypoints to carry them.
            guard format != .gpx436 || !["1", "true"].contains(text) else {
                throw APIError.badRequest("invalid_value", "cues is for .gpx and .geojson downloads; .gpx436 has no waypoints")
            }
            if ["1", "true"].contains(text) { document.waypoints += Self.cueWaypoints(try RecordingService.routeCoordinates(of: track.content)) }
        }
        if let zoomText = request.uri.queryParameters["zoom"] {
            guard format == .geojson else { throw APIError.badRequest("invalid_value", "zoom is for .geojson only") }
            guard let zoom = Int(String(zoomText)), (0...24).contains(zoom) else {
                throw APIError.badRequest("invalid_value", "zoom must be an integer from 0 to 24")
            }
            document = document.simplified(forZoom: zoom, latitudeDegrees: track.middleLatitude)
        }
        let data = try TrackLibrary.encode(document, as: format, stats: track.stats)
        var headers = HTTPFields()
        headers[.contentType] = switch format {
        case .gpx: "application/gpx+xml"
        case .gpx436: "application/json"
        case .geojson: "application/geo+json"
        // A course for a bike computer (Garmin's FIT), with bikeride's cues as course points.
        case .fit: "application/vnd.ant.fit"
        case .tcx: "application/vnd.garmin.tcx+xml"
        }
        headers[.contentDisposition] = "attachment; filename=\"\(Self.downloadName(track.summary.name)).\(format.rawValue)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Points up to which a download is built whole in memory (about 150 B a point unpacked); a longer track
    /// goes out as GPX or GeoJSON written as its blocks are read, and other formats are refused.
    static var wholeDownloadPointLimit: Int { 200_000 }

    /// A long track's `.gpx` or `.geojson`: written as it is read, a page of blocks at a time, so that memory does not
    /// grow with it.
    func streamedDownload(
        _ library: TrackLibrary, _ outline: TrackOutline, format: TrackFileFormat, _ request: Request, logger: Logger
    ) async throws -> Response {
        var cues: [TrackPoint] = []
        if let text = request.uri.queryParameters["cues"] {
            guard ["1", "true"].contains(text) || ["0", "false"].contains(text) else {
                throw APIError.badRequest("invalid_value", "cues must be 1 or 0")
            }
            if ["1", "true"].contains(text) {
                let line = try await library.boundedLines(outline, runs: outline.routeRuns, maximumPoints: StoredTrack.viewPointLimit)
                cues = Self.cueWaypoints(line.flatMap { $0.points.map(\.coordinate) })
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = format == .gpx ? "application/gpx+xml" : "application/geo+json"
        headers[.contentDisposition] = "attachment; filename=\"\(Self.downloadName(outline.summary.name)).\(format.rawValue)\""
        let kind = outline.summary.kind
        let body = ResponseBody { [cues, logger] writer in
            do {
                if format == .gpx {
                    try await library.writeGPX(outline, kind: kind, extraWaypoints: cues) { bytes in try await writer.write(ByteBuffer(bytes: bytes)) }
                } else {
                    try await library.writeGeoJSON(outline, kind: kind, extraWaypoints: cues) { bytes in try await writer.write(ByteBuffer(bytes: bytes)) }
                }
            } catch {
                // The answer has started: the connection is cut, and the reason said once here.
                logger.warning("streamed download cut", metadata: ["track": "\(outline.summary.id)", "error": "\(error)"])
                throw error
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `PATCH /api/tracks/{id}` `{name, kind, source}`: checked whole before anything changes. `source` keeps a simulated
    /// ride as a real one (`"recording"`) or sets it back (`"simulation"`); no other change of source is taken.
    func update(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> TrackSummary {
        let id = try await Self.track(library, try context.parameters.require("id")).summary.id
        guard let body = try await request.decodeJSON(TrackChangesRequest.self, limit: Self.editBodyLimitBytes, allowEmpty: false) else {
            throw APIError.badRequest("bad_json", "the body is empty; it must be JSON")
        }
        var name: String?
        if let given = body.name {
            let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw APIError.badRequest("invalid_value", "name must not be empty") }
            guard trimmed.count <= 200 else { throw APIError.badRequest("invalid_value", "name is longer than 200 characters") }
            name = trimmed
        }
        if name == nil, body.kind == nil, body.source == nil { return try await Self.track(library, id.rawValue).summary }
        return try await library.edit(id, name: name, kind: body.kind, source: body.source)
    }

    /// A zip file's first bytes (a local file header).
    static var zipSignature: [UInt8] { [0x50, 0x4B, 0x03, 0x04] }

    /// An uploaded zip (a Strava bulk export, or any zip of track files): every track file in it, each in its
    /// own transaction, imported in the background. The answer is 202 with the import's job (`ImportJobPayload`,
    /// also at its `Location`), which `GET /api/imports/{id}` reports on as it goes ("312 of 2,041") and, at the
    /// end, with how many files were imported, already there, or failed (and why).
    func importArchive(
        _ library: TrackLibrary, _ upload: SpooledUpload, fileName: String?, permit: WorkGate.Permit?, _ context: Context
    ) async throws -> EditedResponse<ImportJobPayload> {
        var options = ImportOptions()
        options.lenient = true
        options.maximumInflatedBytes = 8 * Self.uploadLimitBytes
        let job = try await library.startArchiveImport(
            upload, fileName: fileName ?? "archive.zip", options: options, whenFinished: { permit?.release() })
        context.logger.info("archive import started", metadata: ["job": "\(job.id)", "bytes": "\(upload.byteCount)"])
        var headers = HTTPFields()
        headers[.location] = "/api/imports/\(job.id.rawValue)"
        return EditedResponse(status: .accepted, headers: headers, response: ImportJobPayload(job))
    }

    /// `DELETE /api/tracks/{id}`: deleted so that `POST /api/tracks/{id}/restore` brings it back.
    func delete(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> Response {
        let id = try Self.trackID(try context.parameters.require("id"))
        guard try await library.delete([id], permanently: false) == [id] else { throw APIError.notFound("no track with id \(id)") }
        return Response(status: .noContent)
    }

    /// `POST /api/tracks/{id}/restore`: undoes a delete.
    func restore(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> TrackSummary {
        let id = try Self.trackID(try context.parameters.require("id"))
        guard try await library.mine.restoreTracks(ids: [id]) == [id],
              let summary = try await library.mine.trackSummary(id: id)
        else { throw APIError.notFound("no deleted track with id \(id)") }
        return summary
    }

    /// `GET /api/tracks/{id}/profile`: elevation and speed against distance.
    func profile(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> ProfilePayload {
        let outline = try await Self.track(library, try context.parameters.require("id"))
        let segments = try await library.boundedLines(outline, maximumPoints: StoredTrack.viewPointLimit)
        return ProfilePayload(TrackProfile(track: Track(segments: segments), activity: outline.summary.kind.activity))
    }

    /// `GET /api/tracks/{id}/cues?units=metric|imperial&line=1`: the turns of the track as a route (its `rte`s when it
    /// has no track points, else its track points), found from its geometry by RideKit's `TurnDetector`; each
    /// with its instruction ("Turn right": a cue sheet says where, not "in …"). With `line=1`, also the route's
    /// line with the distance along it at each point and the follower's thresholds (`guide`); a route too short
    /// to follow is then a 422.
    func cues(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> CueSheetPayload {
        var units = UnitSystem.metric
        if let text = request.uri.queryParameters["units"] {
            guard let value = UnitSystem(rawValue: String(text)) else {
                let allowed = UnitSystem.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError.badRequest("invalid_value", "units must be one of \(allowed), not \"\(text.prefix(64))\"")
            }
            units = value
        }
        var withLine = false
        if let text = request.uri.queryParameters["line"] {
            guard ["1", "true", "0", "false"].contains(text) else { throw APIError.badRequest("invalid_value", "line must be 1 or 0") }
            withLine = ["1", "true"].contains(text)
        }
        let outline = try await Self.track(library, try context.parameters.require("id"))
        // Every point of the route up to the view's limit, every n-th beyond: a cue sheet in bounded memory.
        let line = try await library.boundedLines(outline, runs: outline.routeRuns, maximumPoints: StoredTrack.viewPointLimit)
            .flatMap { $0.points.map(\.coordinate) }
        guard withLine else { return CueSheetPayload(cues: TurnDetector.cues(along: line), units: units) }
        // The line as a recording's follower walks it, and its thresholds: the web app follows the route with
        // them while the server cannot answer (Web/js/guidance.js), and agrees with the server's answers.
        let follower = try RecordingService.makeFollower(route: line, units: units)
        var sheet = CueSheetPayload(cues: follower.cues, units: units)
        sheet.guide = RouteGuidePayload(follower)
        return sheet
    }

    /// The turns of a line as waypoints, Garmin's way of carrying course points in GPX: `<name>` the
    /// instruction ("Turn right"), `<type>` and `<sym>` the course point type ("Right", "SharpLeft", "UTurn" …),
    /// `<desc>` how far along. In GeoJSON they are Point features with those properties.
    static func cueWaypoints(_ line: [Coordinate]) -> [TrackPoint] {
        TurnDetector.cues(along: line).map { cue in
            var point = TrackPoint(latitude: cue.coordinate.latitude, longitude: cue.coordinate.longitude)
            point.name = CueText.instruction(direction: cue.direction, severity: cue.severity)
            point.type = cue.coursePointType
            point.symbol = cue.coursePointType
            point.description = "\(Int(cue.distanceMeters.rounded())) m along the route"
            return point
        }
    }

    // MARK: Helpers

    static func trackID(_ text: String) throws -> TrackID {
        guard let id = TrackID(text) else { throw APIError.notFound("no track with id \(text)") }
        return id
    }

    /// The track without its points (`TrackOutline`), unless unknown or deleted.
    static func track(_ library: TrackLibrary, _ text: String) async throws -> TrackOutline {
        let id = try trackID(text)
        guard let track = try await library.outline(id), track.summary.deletedAt == nil else {
            throw APIError.notFound("no track with id \(text)")
        }
        return track
    }

    /// `ABC.gpx` → (`ABC`, `gpx`).
    static func split(_ parameter: String) -> (id: String, fileExtension: String?) {
        guard let dot = parameter.firstIndex(of: ".") else { return (parameter, nil) }
        return (String(parameter[..<dot]), String(parameter[parameter.index(after: dot)...]))
    }

    /// The zoom the track page's line is simplified for: `zoom=Z`, or one closer than the zoom at which the
    /// track fills a map of `fit=WIDTHxHEIGHT` pixels; nil (every point) when neither is given.
    static func detailZoom(_ request: Request, track: StoredTrack) throws -> Int? {
        let parameters = request.uri.queryParameters
        if let zoomText = parameters["zoom"] {
            guard parameters["fit"] == nil else { throw APIError.badRequest("invalid_value", "give zoom or fit, not both") }
            guard let zoom = Int(String(zoomText)), (0...24).contains(zoom) else {
                throw APIError.badRequest("invalid_value", "zoom must be an integer from 0 to 24")
            }
            return zoom
        }
        guard let fitText = parameters["fit"] else { return nil }
        let sides = fitText.split(separator: "x", omittingEmptySubsequences: false).map { Int(String($0)) }
        guard sides.count == 2, let width = sides[0], let height = sides[1], (1...16_384).contains(width), (1...16_384).contains(height) else {
            throw APIError.badRequest("invalid_value", "fit must be WIDTHxHEIGHT in pixels, each from 1 to 16384")
        }
        guard let bounds = track.summary.bounds else { return nil }
        return LineSimplification.detailZoom(fitting: bounds, widthPixels: Double(width), heightPixels: Double(height))
    }

    /// A file name from a track's name: letters, digits, spaces, `-` and `_`.
    static func downloadName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || " -_".unicodeScalars.contains($0) ? Character($0) : "_" }
        let text = String(kept.prefix(100)).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? "track" : text
    }
}
