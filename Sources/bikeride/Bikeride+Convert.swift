import ArgumentParser
import Foundation
import RideKit
import RideStore

extension TrackFileFormat: ExpressibleByArgument {}

extension Bikeride {
    /// `bikeride convert IN OUT`
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert between GPX, FIT, TCX, the JSON track format (.gpx436) and GeoJSON.",
            discussion: """
                Formats follow the file extensions (.gpx, .fit, .tcx, .gpx436, .geojson; GPX, FIT and TCX also gzipped), \
                or --from/--to. GPX is always written as GPX 1.1, valid against the official schema, with every field and \
                extension of the input kept (heart rate, cadence, power and temperature of FIT and TCX in Garmin's \
                TrackPointExtension). .fit is written as a course for a bike computer, with bikeride's turn cues as \
                course points. TCX is read, not written. Use - for standard input or output. The output file is written \
                only when the input was read completely.
                """
        )

        @Argument(help: "The file to read; - for standard input.")
        var input: String

        @Argument(help: "The file to write; - for standard output.")
        var output: String

        @Option(help: "Format of the input, if its name does not say (gpx, fit, tcx, gpx436, geojson).")
        var from: TrackFileFormat?

        @Option(help: "Format of the output, if its name does not say (gpx, fit, gpx436, geojson).")
        var to: TrackFileFormat?

        @Option(help: "Simplify lines, keeping every point needed to stay within this many metres of the original.")
        var simplify: Double?

        @OptionGroup var read: ReadOptions

        func validate() throws {
            if let simplify, !(simplify.isFinite && simplify > 0) {
                throw ValidationError("--simplify takes a distance in metres greater than 0, such as 5")
            }
            if to == nil && (output == "-" || TrackFileFormat(fileName: output) == nil) {
                throw ValidationError("cannot tell the output format of '\(output)': name it .gpx, .fit, .gpx436 or .geojson, or pass --to")
            }
            if (to ?? TrackFileFormat(fileName: output)) == .tcx {
                throw ValidationError("bikeride reads TCX but does not write it: name the output .gpx, .fit, .gpx436 or .geojson")
            }
            if input != "-" && input == output { throw ValidationError("the output would overwrite the input") }
        }

        func run() throws {
            let outputFormat = to ?? TrackFileFormat(fileName: output)!
            var document: GPXDocument
            do {
                var report: GPXReadReport
                (document, report) = try TrackFileReader.document(at: input, format: from, lenient: read.lenient)
                if !report.isClean {
                    printError(
                        "\(TrackFileReader.displayName(input)): lenient reading dropped \(report.droppedPoints) points and \(report.droppedValues) values, skipped \(report.skippedElements) elements")
                }
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
            if let simplify { document = document.simplified(toleranceMeters: simplify) }
            let bytes: Data
            do {
                switch outputFormat {
                case .gpx: bytes = GPXWriter.data(document)
                case .geojson: bytes = GeoJSONWriter.data(document)
                case .fit, .tcx:
                    bytes = try TrackLibrary.encode(document, as: outputFormat)
                case .gpx436:
                    var summary = GPXSummaryHandler()
                    document.replay(into: &summary)
                    let stats = summary.summary().stats
                    bytes = try JSONTrackFormat.encode(document, distanceMeters: stats.distanceMeters, ascentMeters: stats.ascentMeters)
                }
            } catch {
                printError("bikeride: \(output): \(error)")
                throw ExitCode.failure
            }
            do {
                if output == "-" {
                    FileHandle.standardOutput.write(bytes)
                } else {
                    // Written beside the target and moved into place, so a failure never leaves half a file.
                    try bytes.write(to: URL(filePath: output), options: .atomic)
                }
            } catch {
                printError("bikeride: \(output): cannot write: \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
    }
}
