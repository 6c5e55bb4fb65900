// libFuzzer target for the FIT reader (issue 21): built by Benchmarks/fuzz/run-fit.sh together with every file of
// Sources/RideKit, as one module named RideKit.
//
// Each input is read four ways: strict and lenient, as it is and with its CRCs made right again (a FIT header in
// front: the header's CRC and the file's CRC recomputed), so that mutations inside the messages reach the
// decoder in strict mode instead of stopping at the CRC check. Besides crashes, sanitizer reports, hangs and
// memory blow-ups (libFuzzer's -timeout and -rss_limit_mb), the target traps when
// - a read throws anything but a `FITError`, or a `FITError` whose offset lies outside the file or whose message
//   does not name the byte ("FIT, byte N: ...");
// - the strict read accepts what the lenient read refuses, or the two read different activities from a file
//   the strict read accepts;
// - the strict read accepts and the activity written as GPX (`GPXWriter`) is refused by the GPX reader or reads
//   back with other numbers of track points, route points or waypoints (FUZZ_FIT_NO_ROUND_TRIP=1 turns this off).

import Foundation

private let checkRoundTrip = ProcessInfo.processInfo.environment["FUZZ_FIT_NO_ROUND_TRIP"] != "1"

private func fail(_ what: String, _ bytes: [UInt8], _ details: String) -> Never {
    let text = "\nfuzz_fit: \(what)\n  \(bytes.count) bytes; \(details)\n\n"
    text.withCString { _ = write(2, $0, strlen($0)) }
    abort()
}

/// The read, or the `FITError` it threw; traps on any other error and on an error that does not say where.
private func read(_ bytes: [UInt8], lenient: Bool) -> Result<DeviceActivity, FITError> {
    do {
        return .success(try FITReader.read(bytes, lenient: lenient))
    } catch let error as FITError {
        if error.offset < 0 || error.offset > bytes.count {
            fail("a FITError's offset lies outside the file", bytes, "\(error)")
        }
        if !error.description.hasPrefix("FIT, byte \(error.offset): ") || error.description.count < 20 {
            fail("a FITError that does not say where and what", bytes, "\(error)")
        }
        return .failure(error)
    } catch {
        fail("the reader threw something else than a FITError", bytes, "\(error)")
    }
}

/// `bytes` with a right header CRC (14-byte headers) and file CRC, when they start with a FIT header whose data
/// size fits in them; nil otherwise.
private func withCRCsRecomputed(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.count >= 12, bytes[0] == 12 || bytes[0] == 14, bytes.count >= Int(bytes[0]) else { return nil }
    let headerSize = Int(bytes[0])
    let dataSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
    let end = headerSize + dataSize
    guard end + 2 <= bytes.count else { return nil }
    var fixed = bytes
    if headerSize == 14 {
        var crc = FITCRC()
        crc.update(fixed[0..<12])
        fixed[12] = UInt8(crc.value & 0xFF)
        fixed[13] = UInt8(crc.value >> 8)
    }
    var crc = FITCRC()
    crc.update(fixed[0..<end])
    fixed[end] = UInt8(crc.value & 0xFF)
    fixed[end + 1] = UInt8(crc.value >> 8)
    return fixed == bytes ? nil : fixed
}

private func counts(_ document: GPXDocument) -> (track: Int, route: Int, waypoints: Int) {
    (document.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } },
     document.routes.reduce(0) { $0 + $1.points.count }, document.waypoints.count)
}

private func check(_ bytes: [UInt8]) {
    let strict = read(bytes, lenient: false)
    let lenient = read(bytes, lenient: true)
    guard case .success(let activity) = strict else { return }
    guard case .success(let lenientActivity) = lenient else {
        fail("the strict read accepted what the lenient read refuses", bytes, "\(lenient)")
    }
    if lenientActivity != activity {
        fail("the strict and lenient reads of an undamaged file differ", bytes, "warnings: \(lenientActivity.warnings)")
    }
    guard checkRoundTrip else { return }
    let gpx = GPXWriter.write(activity.document)
    let document: GPXDocument
    do {
        document = try GPXReader.read(bytes: gpx)
    } catch {
        fail("the GPX written from a FIT file is refused by the GPX reader", bytes, "\(error)")
    }
    let (written, read) = (counts(activity.document), counts(document))
    if written != read {
        fail("the GPX written from a FIT file reads back with other counts", bytes, "FIT \(written), GPX \(read)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFITTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    check(bytes)
    if let fixed = withCRCsRecomputed(bytes) { check(fixed) }
    return 0
}
