import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride heatmap --zoom Z --out DIR [--kind K] [--year Y]`
    struct Heatmap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the heatmap of all rides as PNG tiles, Z/X/Y.png under a folder.",
            discussion: """
                Writes every tile of the zoom that holds something ridden (the same 256-pixel tiles as \
                GET /api/heatmap/{z}/{x}/{y}.png), as DIR/Z/X/Y.png, and prints how many. Tiles with nothing \
                ridden are not written: a map library shows them as transparent. --kind (ride, run, walk) and \
                --year count only those tracks.
                """
        )

        @Option(help: "The zoom, 0 to 18.")
        var zoom: Int

        @Option(help: "The folder to write Z/X/Y.png into (made if missing).")
        var out: String

        @Option(help: "Only tracks of this kind: ride, run or walk.")
        var kind: String?

        @Option(help: "Only tracks started in this year.")
        var year: String?

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            guard (0...HeatmapRequest.maximumZoom).contains(zoom) else { throw ValidationError("--zoom takes 0 to \(HeatmapRequest.maximumZoom)") }
            do {
                _ = try HeatmapFilter(kind: kind, year: year)
            } catch {
                throw ValidationError("--\(error.description)")
            }
            if out.isEmpty { throw ValidationError("--out takes a folder") }
        }

        func run() async throws {
            let filter = try HeatmapFilter(kind: kind, year: year)
            let library = try await owner.scoped(library.open())
            // The tiles that can hold anything: those over (or under) the zoom-14 tiles the tracks pass through.
            let visited = try await library.mine.explorerTiles(filter: filter).tiles
            var candidates = Set<TileXY>()
            let base = ExplorerTiles.zoom
            for tile in visited {
                if zoom <= base {
                    candidates.insert(TileXY(x: tile.x >> (base - zoom), y: tile.y >> (base - zoom)))
                } else {
                    let side = 1 << (zoom - base)
                    for dy in 0..<side { for dx in 0..<side { candidates.insert(TileXY(x: tile.x * side + dx, y: tile.y * side + dy)) } }
                }
            }
            let folder = URL(fileURLWithPath: out, isDirectory: true)
            var written = 0
            for tile in candidates.sorted() {
                let request = HeatmapRequest(tile: MapTile(x: tile.x, y: tile.y, zoom: zoom), filter: filter)
                let counts = try await library.mine.heatmapTile(request).counts
                guard !counts.isEmpty else { continue }
                let directory = folder.appendingPathComponent("\(zoom)/\(tile.x)", isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try HeatmapStyle.png(counts).write(to: directory.appendingPathComponent("\(tile.y).png"), options: .atomic)
                written += 1
            }
            print("\(written) tile\(written == 1 ? "" : "s") written to \(folder.path)/\(zoom)")
        }
    }
}
