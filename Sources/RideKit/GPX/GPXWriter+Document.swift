import Foundation

extension GPXWriter {
    // MARK: Whole documents

    /// The document as GPX 1.1 bytes (UTF-8).
    ///
    /// - Parameter creator: the `creator` attribute; defaults to the document's, then to "bikeride".
    public static func write(_ document: GPXDocument, creator: String? = nil) -> [UInt8] {
        var writer = GPXWriter(document: document, creator: creator, chunkSize: .max, sink: nil)
        writer.writeBody(of: document)
        return writer.finishReturningBytes(extensions: document.extensions)
    }

    /// The document as GPX 1.1 text.
    public static func string(_ document: GPXDocument, creator: String? = nil) -> String {
        String(decoding: write(document, creator: creator), as: UTF8.self)
    }

    /// The document as GPX 1.1 data (UTF-8).
    public static func data(_ document: GPXDocument, creator: String? = nil) -> Data {
        Data(write(document, creator: creator))
    }

    /// Streams the document to `sink` in chunks of about `chunkSize` bytes.
    ///
    /// - Throws: the first error the sink threw; nothing more is written after it.
    public static func write(
        _ document: GPXDocument, creator: String? = nil, chunkSize: Int = 1 << 16,
        to sink: @escaping ([UInt8]) throws -> Void
    ) throws {
        var writer = GPXWriter(document: document, creator: creator, chunkSize: chunkSize, sink: sink)
        writer.writeBody(of: document)
        try writer.finish(extensions: document.extensions)
    }

    /// Streams the document to a file handle in chunks of about `chunkSize` bytes.
    public static func write(
        _ document: GPXDocument, creator: String? = nil, chunkSize: Int = 1 << 16, to fileHandle: FileHandle
    ) throws {
        try write(document, creator: creator, chunkSize: chunkSize) { chunk in
            try fileHandle.write(contentsOf: chunk)
        }
    }

    mutating func writeBody(of document: GPXDocument) {
        for waypoint in document.waypoints { writeWaypoint(waypoint) }
        for route in document.routes { writeRoute(route) }
        for track in document.tracks { writeTrack(track) }
    }
}
