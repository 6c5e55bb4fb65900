// libFuzzer target for the GPX reader, differential against libexpat.
//
// Built by Benchmarks/fuzz/run.sh in ONE module named RideKit, together with every file of
// Sources/RideKit, so this file does not `import RideKit` and can see internal API:
//
//   swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name RideKit \
//       Benchmarks/fuzz/fuzz_gpx.swift Sources/RideKit/**/*.swift -I Sources/CExpat -lexpat -I Sources/CZlib -lz
//
// For every input:
//   1. GPXReader.read(bytes:) strictly and leniently: any crash, sanitizer report, timeout or
//      memory blow-up is a finding (libFuzzer reports it).
//   2. libexpat, namespace-aware (XML_ParserCreateNS), refusing any DOCTYPE (a start-doctype handler
//      calls XML_StopParser), parses the same bytes in one final chunk; and once more without namespace
//      processing (XML_ParserCreate), for the lenient read, which on purpose accepts undeclared prefixes
//      (files in the wild use gpxtpx: without declaring it).
//   3. Differential checks, conservative on purpose, because our reader may refuse well-formed XML that
//      is not valid GPX:
//      - TRAP when the strict read ACCEPTS what namespace-aware expat REJECTS as XML, and when the
//        lenient read ACCEPTS what expat without namespaces rejects. The one expat error not counted is
//        XML_ERROR_UNKNOWN_ENCODING: without an unknown-encoding handler expat knows only UTF-8,
//        UTF-16(LE/BE), ISO-8859-1 and US-ASCII, so an alias our reader accepts is not a bug.
//      - TRAP when the strict read accepts and the lenient read refuses (lenient only ever accepts more).
//      - TRAP when the strict read accepts and the number of wpt, rtept and trkpt differs from what
//        expat saw at the GPX places (gpx/wpt, gpx/rte/rtept, gpx/trk/trkseg/trkpt, names in the GPX
//        1.0 or 1.1 namespace or in none) with a finite, in-range lat and lon (the reader drops some
//        out-of-range markers on purpose, e.g. OpenTracks' pause/resume points at lat 100 and 200).
//        Set FUZZ_GPX_NO_POINT_COUNT=1 to turn this off.
//      - Optional (FUZZ_GPX_FALSE_REJECTS=1): TRAP when expat accepts and our strict reader calls the
//        input not well-formed XML (GPXError.Reason.notWellFormed / .truncated). Off by default: the
//        reader may legitimately be stricter than expat. Known case: expat accepts UTF-16 with an
//        unpaired surrogate, which is not an XML Char (the reader is right to refuse it).
//   Gzip input (1F 8B) is read strictly and leniently with an 8 MiB inflate limit and compared with nothing:
//   expat does not inflate.
//   4. Reading in parts (SpeculativeReading, what `bikeride stats` does with a large file): the input is
//      written to a file and summarised once sequentially and once cut into parts of 64 to 1,024 bytes read
//      by two worker threads. TRAP when the two differ in anything: the summary, or the error with its line
//      and column. Set FUZZ_GPX_NO_PARTS=1 to turn this off.
//
// A trap prints both verdicts first, so the crash file in Benchmarks/fuzz/artifacts/ explains itself.

import CExpat
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private let checkPointCounts = getenv("FUZZ_GPX_NO_POINT_COUNT") == nil
private let checkFalseRejects = getenv("FUZZ_GPX_FALSE_REJECTS") != nil
private let checkParts = getenv("FUZZ_GPX_NO_PARTS") == nil

/// The summary of the file at `url`: sequentially (no workers), or in parts of `partBytes` on two workers.
private func summary(of url: URL, partBytes: Int?) -> Result<GPXSummary, GPXError> {
    var handler = GPXSummaryHandler()
    var parts = (taken: 0, sequential: 0)
    return Result { () throws(GPXError) in
        let report = try GPXReader.parse(
            contentsOf: url, into: &handler, options: GPXReadOptions(), partBytes: partBytes ?? 1 << 20,
            minimumFileBytes: 0, workers: partBytes == nil ? 0 : 2, parts: &parts)
        return handler.summary(report: report)
    }
}

/// Checks that reading in parts gives what the sequential reader gives (see 4. above).
private func checkReadingInParts(_ bytes: [UInt8]) {
    let url = URL(filePath: "/tmp/fuzz_gpx-\(getpid()).gpx")
    guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else { return }
    defer { unlink(url.path) }
    let sequential = summary(of: url, partBytes: nil)
    // The part size follows from the input, so that a crash file reproduces it.
    let partBytes = 64 + (bytes.count * 7 + Int(bytes.first ?? 0)) % 960
    let inParts = summary(of: url, partBytes: partBytes)
    if sequential != inParts {
        var text = "fuzz_gpx: reading in parts differs from reading in sequence\n  sequential: \(sequential)\n"
        text += "  in parts of \(partBytes) bytes: \(inParts)\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        abort()
    }
}

/// What expat made of the input.
private final class ExpatVerdict {
    var accepted = false
    var errorCode = XML_ERROR_NONE
    var errorText = ""
    var line = 0
    var column = 0
    var sawDoctype = false
    var parser: XML_Parser?
    var waypoints = 0
    var routePoints = 0
    var trackPoints = 0
    /// Local names (GPX-namespace or no namespace) of the open elements; "" for any other namespace.
    var stack: [String] = []
}

private let namespaceSeparator: XML_Char = 0x01  // cannot occur in a namespace name (not an XML Char)

/// The local name of an expanded expat name if its namespace is GPX 1.0, GPX 1.1 or none, else "".
private func gpxLocalName(_ name: UnsafePointer<XML_Char>) -> String {
    let expanded = String(cString: name)
    guard let separator = expanded.utf8.firstIndex(of: 0x01) else { return expanded }
    let uri = String(expanded[..<separator])
    guard uri == "http://www.topografix.com/GPX/1/1" || uri == "http://www.topografix.com/GPX/1/0" else {
        return ""
    }
    return String(expanded[expanded.utf8.index(after: separator)...])
}

/// Whether a point element's lat and lon are finite numbers in range. Only such points are counted:
/// the reader refuses the others in strict mode, except markers it knows and drops on purpose (OpenTracks'
/// legacy pause/resume points at lat 100 and 200).
private func hasValidPosition(_ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) -> Bool {
    guard let attributes else { return false }
    var lat: Double?, lon: Double?
    var index = 0
    while let name = attributes[index], let value = attributes[index + 1] {
        let key = String(cString: name)
        if key == "lat" || key == "lon" {
            let number = Double(String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines))
            if key == "lat" { lat = number } else { lon = number }
        }
        index += 2
    }
    guard let lat, let lon, lat.isFinite, lon.isFinite else { return false }
    return abs(lat) <= 90 && abs(lon) <= 180
}

private func runExpat(_ bytes: UnsafeRawBufferPointer, namespaces: Bool) -> ExpatVerdict {
    let verdict = ExpatVerdict()
    guard let parser = namespaces ? XML_ParserCreateNS(nil, namespaceSeparator) : XML_ParserCreate(nil) else {
        fatalError("XML_ParserCreate failed")
    }
    defer { XML_ParserFree(parser) }
    verdict.parser = parser
    XML_SetUserData(parser, Unmanaged.passUnretained(verdict).toOpaque())
    // GPX never has a DTD and our reader refuses one: so does expat here, by stopping at its start,
    // before anything of the DTD (entities, attribute defaults) is used.
    XML_SetStartDoctypeDeclHandler(parser) { userData, _, _, _, _ in
        let verdict = Unmanaged<ExpatVerdict>.fromOpaque(userData!).takeUnretainedValue()
        verdict.sawDoctype = true
        _ = XML_StopParser(verdict.parser, XML_FALSE)
    }
    XML_SetElementHandler(
        parser,
        { userData, name, attributes in
            let verdict = Unmanaged<ExpatVerdict>.fromOpaque(userData!).takeUnretainedValue()
            let local = gpxLocalName(name!)
            let path = verdict.stack
            switch (local, path.count) {
            case ("wpt", 1) where path[0] == "gpx":
                if hasValidPosition(attributes) { verdict.waypoints += 1 }
            case ("rtept", 2) where path[0] == "gpx" && path[1] == "rte":
                if hasValidPosition(attributes) { verdict.routePoints += 1 }
            case ("trkpt", 3) where path[0] == "gpx" && path[1] == "trk" && path[2] == "trkseg":
                if hasValidPosition(attributes) { verdict.trackPoints += 1 }
            default: break
            }
            verdict.stack.append(local)
        },
        { userData, _ in
            let verdict = Unmanaged<ExpatVerdict>.fromOpaque(userData!).takeUnretainedValue()
            verdict.stack.removeLast()
        })
    let status = XML_Parse(
        parser, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), 1)
    verdict.parser = nil
    if status == XML_STATUS_OK && !verdict.sawDoctype {
        verdict.accepted = true
    } else {
        verdict.errorCode = XML_GetErrorCode(parser)
        verdict.errorText = verdict.sawDoctype
            ? "DOCTYPE refused (stopped by the start-doctype handler)"
            : String(cString: XML_ErrorString(verdict.errorCode))
        verdict.line = Int(XML_GetCurrentLineNumber(parser))
        verdict.column = Int(XML_GetCurrentColumnNumber(parser))
    }
    return verdict
}

private func describe(_ result: Result<GPXDocument, GPXError>) -> String {
    switch result {
    case .success(let document):
        let points = document.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
        return "accepted (\(document.waypoints.count) wpt, \(document.routes.count) rte, "
            + "\(document.tracks.count) trk, \(points) trkpt)"
    case .failure(let error):
        return "refused: \(error)"
    }
}

private func trap(_ what: String, _ expat: ExpatVerdict, strict: Result<GPXDocument, GPXError>,
                  lenient: Result<GPXDocument, GPXError>) -> Never {
    let expatText = expat.accepted
        ? "accepted (\(expat.waypoints) wpt, \(expat.routePoints) rtept, \(expat.trackPoints) trkpt)"
        : "refused: \(expat.errorText) (code \(expat.errorCode.rawValue)) at line \(expat.line), column \(expat.column)"
    var text = """
        fuzz_gpx: \(what)
          expat:            \(expatText)
          GPXReader strict:  \(describe(strict))
          GPXReader lenient: \(describe(lenient))

        """
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    abort()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPXTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    let bytes = [UInt8](buffer)

    // Gzip-compressed input is inflated by the reader (GzipSource, zlib); expat cannot compare it, so only the
    // reads themselves are checked (crashes, sanitizer reports, hangs, memory), with a small inflate limit.
    if bytes.starts(with: [0x1F, 0x8B]) {
        _ = try? GPXReader.read(bytes: bytes, options: GPXReadOptions(maximumInflatedBytes: 8 << 20))
        _ = try? GPXReader.read(bytes: bytes, options: GPXReadOptions(lenient: true, maximumInflatedBytes: 8 << 20))
        return 0
    }

    let strict: Result<GPXDocument, GPXError> = Result { () throws(GPXError) in
        try GPXReader.read(bytes: bytes)
    }
    let lenient: Result<GPXDocument, GPXError> = Result { () throws(GPXError) in
        try GPXReader.read(bytes: bytes, options: GPXReadOptions(lenient: true))
    }
    let expat = runExpat(buffer, namespaces: true)
    let expatWithoutNamespaces = runExpat(buffer, namespaces: false)

    let strictAccepted = (try? strict.get()) != nil
    let lenientAccepted = (try? lenient.get()) != nil

    if strictAccepted && !expat.accepted && expat.errorCode != XML_ERROR_UNKNOWN_ENCODING {
        trap("GPXReader (strict) accepted input that expat refuses as XML", expat, strict: strict, lenient: lenient)
    }
    if lenientAccepted && !expatWithoutNamespaces.accepted
        && expatWithoutNamespaces.errorCode != XML_ERROR_UNKNOWN_ENCODING
    {
        trap("GPXReader (lenient) accepted input that expat without namespace processing refuses as XML",
             expatWithoutNamespaces, strict: strict, lenient: lenient)
    }
    if strictAccepted && !lenientAccepted {
        trap("the strict read accepted input that the lenient read refuses", expat, strict: strict, lenient: lenient)
    }
    if checkPointCounts, expat.accepted, case .success(let document) = strict {
        let trackPoints = document.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
        let routePoints = document.routes.reduce(0) { $0 + $1.points.count }
        if trackPoints != expat.trackPoints || routePoints != expat.routePoints
            || document.waypoints.count != expat.waypoints
        {
            trap("the strict read and expat count different points (FUZZ_GPX_NO_POINT_COUNT=1 turns this off)",
                 expat, strict: strict, lenient: lenient)
        }
    }
    if checkParts { checkReadingInParts(bytes) }
    if checkFalseRejects, expat.accepted, case .failure(let error) = strict {
        switch error.reason {
        case .notWellFormed, .truncated:
            trap("GPXReader calls not-well-formed what expat accepts (FUZZ_GPX_FALSE_REJECTS)",
                 expat, strict: strict, lenient: lenient)
        default:
            break
        }
    }
    return 0
}
