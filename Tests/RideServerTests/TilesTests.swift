import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import RideStore
import Testing

/// Writes a tiny MBTiles file: tiles 1/0/0 and 1/1/1 (slippy numbering), each the bytes of its name.
func makeMBTiles() throws -> String {
    let path = FileManager.default.temporaryDirectory.appending(path: "bikeride-test-\(UUID().uuidString).mbtiles").path
    let sql = """
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
        INSERT INTO metadata VALUES ('name', 'test'), ('format', 'png'), ('minzoom', '1'), ('maxzoom', '1'),
            ('bounds', '-180,-85,180,85');
        INSERT INTO tiles VALUES (1, 0, 1, CAST('tile 1/0/0' AS BLOB)), (1, 1, 0, CAST('tile 1/1/1' AS BLOB));
        """
    try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
    return path
}

@Suite struct TilesTests {
    @Test func tilesAreServedWithTheRowsFlippedFromTMS() async throws {
        let path = try makeMBTiles()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await TestServer(tilesPath: path).run { client in
            let northWest = try await client.get("/tiles/1/0/0.png")
            #expect(northWest.status == .ok)
            #expect(northWest.headers[.contentType] == "image/png")
            #expect(northWest.text == "tile 1/0/0")
            #expect(try await client.get("/tiles/1/1/1.png").text == "tile 1/1/1")
            #expect(try await client.get("/tiles/1/1/0.png").status == .notFound)
            #expect(try await client.get("/tiles/1/5/0.png").status == .notFound)
            #expect(try await client.get("/tiles/x/0/0.png").status == .badRequest)
            let config = try await client.get("/api/config").jsonObject()
            let offline = try #require(config["offlineTiles"] as? [String: Any])
            #expect(offline["url"] as? String == "/tiles/{z}/{x}/{y}.png")
            #expect(offline["maxZoom"] as? Int == 1)
        }
    }

    @Test func aFileThatIsNotMBTilesIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "not-tiles-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: path, contents: Data("hello".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: MBTilesError.self) { try MBTilesReader(path: path) }
        #expect(throws: MBTilesError.self) { try MBTilesReader(path: path + "-missing") }
    }
}
