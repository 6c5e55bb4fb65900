extension GPXDocument {
    /// Hands the document to a content handler in file order, as the reader would have.
    ///
    ///     var summary = GPXSummaryHandler()
    ///     document.replay(into: &summary)
    public func replay<Handler: GPXContentHandler>(into handler: inout Handler) {
        handler.beginDocument(version: version, creator: creator)
        for waypoint in waypoints { handler.waypoint(waypoint) }
        for route in routes { handler.route(route) }
        for track in tracks {
            handler.beginTrack()
            for segment in track.segments {
                handler.beginSegment()
                for point in segment.points { handler.trackPoint(point) }
                handler.endSegment(extensions: segment.extensions)
            }
            var header = track
            header.segments = []
            handler.endTrack(header)
        }
        handler.endDocument(metadata: metadata, extensions: extensions)
    }

    /// The document with every track segment and route simplified to within `toleranceMeters` of the original
    /// line (Douglas–Peucker); the first and last point of each line are always kept.
    public func simplified(toleranceMeters: Double) -> GPXDocument {
        var copy = self
        for trackIndex in copy.tracks.indices {
            for segmentIndex in copy.tracks[trackIndex].segments.indices {
                let points = copy.tracks[trackIndex].segments[segmentIndex].points
                let kept = LineSimplification.douglasPeuckerIndices(of: points.map(\.coordinate), toleranceMeters: toleranceMeters)
                copy.tracks[trackIndex].segments[segmentIndex].points = kept.map { points[$0] }
            }
        }
        for routeIndex in copy.routes.indices {
            let points = copy.routes[routeIndex].points
            let kept = LineSimplification.douglasPeuckerIndices(of: points.map(\.coordinate), toleranceMeters: toleranceMeters)
            copy.routes[routeIndex].points = kept.map { points[$0] }
        }
        return copy
    }
}
