import ArgumentParser
import Foundation
import RideKit

extension Bikeride {
    /// `bikeride cues FILE`
    struct Cues: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The turns of a route (GPX, .gpx436 or GeoJSON): a cue sheet found from the line's geometry.",
            discussion: """
                The line is the file's routes (rte) when it has no track points, else its track points, every \
                segment joined in order. A turn is a change of heading of 30° or more that holds (docs/navigation.md): \
                slight 30–60°, turn 60–120°, sharp 120–160°, U-turn beyond. A file that cannot be read is reported as \
                FILE:LINE:COLUMN: problem, with exit code 1.
                """
        )

        @Argument(help: "The route file; - reads standard input.")
        var file: String

        @Flag(help: "Print a JSON array of cues instead of a table.")
        var json = false

        @Option(help: "Units of the distances in the table: metric or imperial.")
        var units: UnitSystem = .metric

        @OptionGroup var read: ReadOptions

        func run() throws {
            let line: [Coordinate]
            do {
                let (document, _) = try TrackFileReader.document(at: file, lenient: read.lenient)
                line = CueSheet.line(of: document)
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
            let cues = TurnDetector.cues(along: line)
            print(json ? CueSheet.json(cues) : CueSheet.table(cues, units: units))
        }
    }
}

/// What `bikeride cues` prints.
enum CueSheet {
    /// The line to find turns on: `GPXDocument.routeLinePoints`, the server's rule too.
    static func line(of document: GPXDocument) -> [Coordinate] {
        document.routeLinePoints.map(\.coordinate)
    }

    /// A JSON array, one object per cue: latitude, longitude, distanceMeters (along the line from its start),
    /// direction, severity, angleDegrees (positive to the right), text ("Turn right").
    static func json(_ cues: [Cue]) -> String {
        let objects: [[String: Any]] = cues.map { cue in
            [
                "latitude": cue.coordinate.latitude, "longitude": cue.coordinate.longitude,
                "distanceMeters": cue.distanceMeters, "direction": cue.direction.rawValue, "severity": cue.severity.rawValue,
                "angleDegrees": cue.angleDegrees, "text": CueText.instruction(direction: cue.direction, severity: cue.severity),
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A table: distance along the line, direction, severity, angle, instruction; a line saying so when there
    /// is no turn.
    static func table(_ cues: [Cue], units: UnitSystem) -> String {
        guard !cues.isEmpty else { return "no turns" }
        let header = ["DISTANCE", "DIRECTION", "SEVERITY", "ANGLE", "TEXT"]
        var rows = [header]
        for cue in cues {
            // Kilometres or miles throughout: a column of figures that compare.
            let distance = units.formatDistance(meters: cue.distanceMeters, smallUnits: false)
            rows.append([
                distance, cue.direction.rawValue, cue.severity.rawValue, String(format: "%.0f°", cue.angleDegrees),
                CueText.instruction(direction: cue.direction, severity: cue.severity),
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                // Figures right, words left.
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column == 3 ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }
}
