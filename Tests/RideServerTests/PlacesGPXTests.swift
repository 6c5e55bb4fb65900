import Foundation
import TestSupport
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// `xmllint --schema` against the official GPX 1.1 schema in the shared fixtures: nil when valid, else its
/// messages.
private func gpxSchemaErrors(_ data: Data) throws -> String? {
    let fixtures = ProcessInfo.processInfo.environment["BIKERIDE_FIXTURES"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures").path
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("bikeride-places-\(UUID().uuidString).gpx")
    try data.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
    process.arguments = ["--noout", "--nonet", "--schema", fixtures + "/schema/gpx-1.1.xsd", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? nil : String(decoding: output, as: UTF8.self)
}

private let waypointsGPX = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
    <wpt lat="46.5197" lon="6.6323"><name>Bakery &amp; café</name><cmt>Rue 1</cmt><desc>Fresh at 7</desc></wpt>
    <wpt lat="-33.8688" lon="151.2093"><name>Opera</name></wpt>
    <wpt lat="0.5" lon="-0.5"></wpt>
    </gpx>
    """

@Suite struct PlacesGPXTests {
    @Test func exportsSchemaValidWaypointsWithNotesAndFiltersByLabel() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"), "xmllint is not installed (libxml2-utils)")
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let label = try await client.createLabel("Shops")
            let bakery = try #require(try await client.createPlace("Bakery <&>", at: Coordinate(latitude: 46.5197, longitude: 6.6323),
                extra: #","address":"Rue 1","labels":["\#(label)"]"#)["id"] as? String)
            _ = try await client.post("/api/places/\(bakery)/notes", json: #"{"body":"Bread & <cake>"}"#)
            _ = try await client.post("/api/places/\(bakery)/notes", json: #"{"body":"Closed Monday"}"#)
            try await client.createPlace("Opera", at: Coordinate(latitude: -33.8688, longitude: 151.2093))

            let all = try await client.get("/api/places.gpx")
            #expect(all.status == .ok)
            #expect(all.headers[.contentType] == "application/gpx+xml")
            #expect(all.headers[.contentDisposition]?.hasPrefix("attachment") == true)
            let data = Data(buffer: all.body)
            #expect(try gpxSchemaErrors(data) == nil)
            let document = try GPXReader.read(data: data)
            #expect(document.waypoints.map(\.name) == ["Bakery <&>", "Opera"])
            #expect(document.waypoints.first?.description == "Bread & <cake>\n\nClosed Monday")
            #expect(document.waypoints.first?.comment == "Rue 1")
            #expect(document.waypoints.last?.latitude == -33.8688 && document.waypoints.last?.longitude == 151.2093)

            let filtered = try await client.get("/api/places.gpx?label=\(label)")
            let filteredData = Data(buffer: filtered.body)
            #expect(try gpxSchemaErrors(filteredData) == nil)
            #expect(try GPXReader.read(data: filteredData).waypoints.map(\.name) == ["Bakery <&>"])
            #expect(try await client.get("/api/places.gpx?label=!").status == .badRequest)
        }
    }

    @Test func importsEveryWaypointAsAPlace() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let response = try await client.execute(
                uri: "/api/places/import", method: .post, headers: [.contentType: "application/gpx+xml"], body: ByteBuffer(string: waypointsGPX))
            #expect(response.status == .created, "\(response.text)")
            let places = try #require(try response.jsonObject()["places"] as? [[String: Any]])
            #expect(places.count == 3)
            #expect(try await client.placeNames("/api/places?sort=name") == ["(-0.5, 0.5)", "Bakery & café", "Opera"])
            let bakery = try #require(places.first { $0["name"] as? String == "Bakery & café" })
            #expect(bakery["address"] as? String == "Rue 1" && bakery["latitude"] as? Double == 46.5197)
            let detail = try await client.get("/api/places/\(try #require(bakery["id"] as? String))").jsonObject()
            #expect((detail["notes"] as? [[String: Any]])?.compactMap { $0["body"] as? String } == ["Fresh at 7"])
        }
    }

    @Test func refusesFilesThatAreNotGPXWithWaypointsAndStoresNothing() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let bodies: [(String, HTTPResponse.Status)] = [
                ("", .badRequest),
                ("<gpx><wpt lat=\"1\"", .unprocessableContent),
                (#"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="91" lon="0"/></gpx>"#, .unprocessableContent),
                (#"<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"></gpx>"#, .unprocessableContent),
                ("{\"name\":\"x\"}", .unprocessableContent),
            ]
            for (body, status) in bodies {
                let response = try await client.execute(uri: "/api/places/import", method: .post, body: ByteBuffer(string: body))
                #expect(response.status == status, "\(body): \(response.text)")
                #expect(try response.errorCode() != nil)
            }
            #expect(try await client.placeNames("/api/places").isEmpty)
        }
    }
}
