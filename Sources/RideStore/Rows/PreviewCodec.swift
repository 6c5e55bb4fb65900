import Foundation
import RideKit

/// The small drawing of a track's shape, stored in the track's row so that the list reads no points: at most
/// `TrackPreview.maximumPointCount` positions (Douglas–Peucker over the whole track), as zigzag varint deltas
/// at 10⁻⁵ degrees (about a metre: plenty for a 64-pixel picture). About 200 bytes a track.
package enum PreviewCodec {
    package static func preview(of content: TrackContent) -> [Coordinate] {
        var coordinates: [Coordinate] = []
        for track in content.tracks {
            for segment in track.segments {
                guard let points = try? segment.points.points() else { continue }
                coordinates += points.map(\.coordinate)
            }
        }
        if coordinates.isEmpty {
            for route in content.routes { coordinates += ((try? route.points.points()) ?? []).map(\.coordinate) }
        }
        return simplified(coordinates)
    }

    /// At most `TrackPreview.maximumPointCount` of the coordinates, chosen to keep the shape.
    package static func simplified(_ coordinates: [Coordinate]) -> [Coordinate] {
        var line = coordinates.filter(\.isValid)
        guard line.count > TrackPreview.maximumPointCount else { return line }
        // Thin very long lines first: Douglas–Peucker on a million points is wasted work for 64 pixels.
        let stride = max(1, line.count / 4096)
        if stride > 1 {
            let last = line[line.count - 1]
            line = Swift.stride(from: 0, to: line.count, by: stride).map { line[$0] }
            if line.last != last { line.append(last) }
        }
        var tolerance = 5.0
        while true {
            let kept = LineSimplification.douglasPeuckerIndices(of: line, toleranceMeters: tolerance)
            if kept.count <= TrackPreview.maximumPointCount { return kept.map { line[$0] } }
            tolerance *= 2
        }
    }

    package static func encode(_ coordinates: [Coordinate]) -> Data {
        var writer = ByteWriter(capacity: coordinates.count * 5 + 2)
        writer.varint(coordinates.count)
        var previous = (latitude: Int64(0), longitude: Int64(0))
        for coordinate in coordinates {
            let latitude = Int64((coordinate.latitude * 1e5).rounded())
            let longitude = Int64((coordinate.longitude * 1e5).rounded())
            writer.zigzag(latitude - previous.latitude)
            writer.zigzag(longitude - previous.longitude)
            previous = (latitude, longitude)
        }
        return Data(writer.bytes)
    }

    package static func decode(_ data: Data) -> [Coordinate] {
        data.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            var coordinates: [Coordinate] = []
            do throws(PointBlockError) {
                let count = try reader.count(limit: 1 << 16)
                var latitude: Int64 = 0
                var longitude: Int64 = 0
                for _ in 0..<count {
                    latitude += try reader.zigzag()
                    longitude += try reader.zigzag()
                    coordinates.append(Coordinate(latitude: Double(latitude) / 1e5, longitude: Double(longitude) / 1e5))
                }
            } catch {
                return []
            }
            return coordinates
        }
    }
}
