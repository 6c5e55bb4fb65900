import Foundation

/// How strictly to read.
public struct GPXReadOptions: Sendable, Hashable {
    /// Drop points with a missing or invalid position (and invalid values) and skip unknown elements,
    /// counting them in a `GPXReadReport`, instead of refusing the file. Broken XML is refused either way.
    public var lenient: Bool
    /// A gzip-compressed file inflating to more than this is refused (a few MiB of gzip can hold gigabytes).
    public var maximumInflatedBytes: Int

    public init(lenient: Bool = false, maximumInflatedBytes: Int = 4 << 30) {
        self.lenient = lenient
        self.maximumInflatedBytes = maximumInflatedBytes
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
    /// Elevations a file may hold, metres: below the deepest trench, up to what a balloon or a rocket logs. Other
    /// readers (FIT) keep to it too, so that what they read is written as GPX that reads back.
    static let elevationRange: ClosedRange<Double> = -12_000...1_000_000

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
        var parts = (taken: 0, sequential: 0)
        return try parse(contentsOf: url, into: &handler, options: options, partBytes: SpeculativeReading.defaultPartBytes, parts: &parts)
    }

    /// Streams a file into `handler`; a large file for `GPXSummaryHandler` is read in parts of about `partBytes`
    /// on several threads (`SpeculativeReading`). Tests choose small parts.
    static func parse<Handler: GPXContentHandler>(
        contentsOf url: URL, into handler: inout Handler, options: GPXReadOptions, partBytes: Int,
        minimumFileBytes: Int = SpeculativeReading.minimumFileBytes, workers: Int = SpeculativeReading.defaultWorkers,
        waitingForWorkers: Bool = false, parts: inout (taken: Int, sequential: Int)
    ) throws(GPXError) -> GPXReadReport {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw GPXError(.io("cannot open \(url.path): \(describe(error))"), line: 0, column: 0)
        }
        var speculation: SpeculationSetup?
        var status = stat()
        if handler is any SpeculatedPartConsumer, !options.lenient, workers > 0, fstat(handle.fileDescriptor, &status) == 0,
            status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) >= minimumFileBytes
        {
            speculation = SpeculationSetup(
                descriptor: handle.fileDescriptor, fileSize: Int(status.st_size), partBytes: partBytes, workers: workers,
                waitsForWorkers: waitingForWorkers)
        }
        if let speculation {
            // Read in parts: this reader reads only what the workers did not, and skips the rest unread.
            defer { try? handle.close() }
            let source = FileRangeSource(descriptor: handle.fileDescriptor, range: 0..<speculation.fileSize)
            return try parse(source: source, into: &handler, options: options, speculation: speculation, parts: &parts)
        }
        let source = ReadAheadSource(handle: handle)
        // The read-ahead thread must stop before the file is closed, whether the parse finished or failed.
        defer {
            source.stop()
            try? handle.close()
        }
        return try parse(source: source, into: &handler, options: options, speculation: nil, parts: &parts)
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
        source: any ByteSource, into handler: inout Handler, options: GPXReadOptions, speculation: SpeculationSetup? = nil
    ) throws(GPXError) -> GPXReadReport {
        var parts = (taken: 0, sequential: 0)
        return try parse(source: source, into: &handler, options: options, speculation: speculation, parts: &parts)
    }

    static func parse<Handler: GPXContentHandler>(
        source: any ByteSource, into handler: inout Handler, options: GPXReadOptions, speculation: SpeculationSetup?,
        parts: inout (taken: Int, sequential: Int)
    ) throws(GPXError) -> GPXReadReport {
        var decoding = try sniff(source)
        var speculation = speculation
        if decoding.encoding == .utf8 && !decoding.hadByteOrderMark, decoding.startsWithGzipMagic {
            // A `.gpx.gz`: inflated as it streams. Its offsets are not the file's, so it is read in order.
            decoding = try sniff(GzipSource(decoding.undecoded(), maximumInflatedBytes: options.maximumInflatedBytes))
            speculation = nil
        }
        let encoding = decoding.encoding
        let scanner = XMLScanner(source: decoding, lenient: options.lenient) { encoding.accepts(declared: $0) }
        var parser = GPXParser(scanner: scanner, handler: handler, lenient: options.lenient)
        // Parts are cut at file offsets: only where the tokenizer sees the file's own bytes.
        if encoding == .utf8 && !decoding.hadByteOrderMark { parser.speculationSetup = speculation }
        defer { parts = parser.finishSpeculation() }
        try parser.parse()
        handler = parser.handler
        return parser.report
    }

    private static func sniff(_ source: any ByteSource) throws(GPXError) -> DecodingSource {
        do {
            return try DecodingSource(source)
        } catch let error as GPXError {
            throw error
        } catch {
            throw GPXError(.io("cannot read: \(describe(error))"), line: 0, column: 0)
        }
    }

    private static func describe(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
