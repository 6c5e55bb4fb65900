import Foundation

/// How strictly to read.
public struct GPXReadOptions: Sendable, Hashable {
    /// Drop points with a missing or invalid position (and invalid values) and skip unknown elements,
    /// counting them in a `GPXReadReport`, instead of refusing the file. Broken XML is refused either way.
    public var lenient: Bool

    public init(lenient: Bool = false) {
        self.lenient = lenient
    }
}

/// Reads GPX files: whole documents, or streamed into any `GPXContentHandler`.
///
///     let document = try GPXReader.read(contentsOf: URL(filePath: "ride.gpx"))
///     document.tracks[0].segments[0].points.count
///
/// Files are read in chunks of 1 MiB, so streaming a 330 MB file into a handler that keeps nothing uses a few
/// MiB. UTF-8 (with or without a BOM), UTF-16 with a BOM, ISO-8859-1 and US-ASCII are read; anything that is not
/// well-formed XML, has a DTD, or is not GPX is refused with the line and column of the problem.
public enum GPXReader {
    /// Reads a whole GPX document from a file.
    public static func read(contentsOf url: URL, options: GPXReadOptions = .init()) throws(GPXError) -> GPXDocument {
        try readWithReport(contentsOf: url, options: options).document
    }

    /// Reads a whole GPX document from bytes in memory.
    public static func read(bytes: [UInt8], options: GPXReadOptions = .init()) throws(GPXError) -> GPXDocument {
        try readWithReport(bytes: bytes, options: options).document
    }

    /// Reads a whole GPX document from `Data`.
    public static func read(data: Data, options: GPXReadOptions = .init()) throws(GPXError) -> GPXDocument {
        try read(bytes: [UInt8](data), options: options)
    }

    /// Reads a document and says what lenient reading left out.
    public static func readWithReport(contentsOf url: URL, options: GPXReadOptions = .init()) throws(GPXError) -> (
        document: GPXDocument, report: GPXReadReport
    ) {
        var builder = GPXDocumentBuilder()
        let report = try parse(contentsOf: url, into: &builder, options: options)
        return (builder.document, report)
    }

    /// Reads a document from bytes and says what lenient reading left out.
    public static func readWithReport(bytes: [UInt8], options: GPXReadOptions = .init()) throws(GPXError) -> (
        document: GPXDocument, report: GPXReadReport
    ) {
        var builder = GPXDocumentBuilder()
        let report = try parse(bytes: bytes, into: &builder, options: options)
        return (builder.document, report)
    }

    /// Streams a file into `handler`.
    public static func parse<Handler: GPXContentHandler>(
        contentsOf url: URL, into handler: inout Handler, options: GPXReadOptions = .init()
    ) throws(GPXError) -> GPXReadReport {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw GPXError(.io("cannot open \(url.path): \(describe(error))"), line: 0, column: 0)
        }
        let source = ReadAheadSource(handle: handle)
        // The read-ahead thread must stop before the file is closed, whether the parse finished or failed.
        defer {
            source.stop()
            try? handle.close()
        }
        return try parse(source: source, into: &handler, options: options)
    }

    /// Streams an open file or pipe (standard input) into `handler`.
    public static func parse<Handler: GPXContentHandler>(
        fileHandle: FileHandle, into handler: inout Handler, options: GPXReadOptions = .init()
    ) throws(GPXError) -> GPXReadReport {
        try parse(source: FileSource(handle: fileHandle), into: &handler, options: options)
    }

    /// Streams bytes in memory into `handler`.
    public static func parse<Handler: GPXContentHandler>(
        bytes: [UInt8], into handler: inout Handler, options: GPXReadOptions = .init()
    ) throws(GPXError) -> GPXReadReport {
        try parse(source: MemorySource(bytes), into: &handler, options: options)
    }

    static func parse<Handler: GPXContentHandler>(
        source: any ByteSource, into handler: inout Handler, options: GPXReadOptions
    ) throws(GPXError) -> GPXReadReport {
        let decoding: DecodingSource
        do {
            decoding = try DecodingSource(source)
        } catch let error as GPXError {
            throw error
        } catch {
            throw GPXError(.io("cannot read: \(describe(error))"), line: 0, column: 0)
        }
        if decoding.encoding == .utf8 && !decoding.hadByteOrderMark, decoding.startsWithGzipMagic {
            throw GPXError(.unsupportedEncoding("the file is gzip-compressed: decompress it first (gunzip)"), line: 0, column: 0)
        }
        let encoding = decoding.encoding
        let scanner = XMLScanner(source: decoding, lenient: options.lenient) { encoding.accepts(declared: $0) }
        var parser = GPXParser(scanner: scanner, handler: handler, lenient: options.lenient)
        try parser.parse()
        handler = parser.handler
        return parser.report
    }

    private static func describe(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
