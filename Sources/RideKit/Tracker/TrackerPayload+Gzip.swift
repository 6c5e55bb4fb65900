import Foundation

extension TrackerPayload {
    /// A gzip-compressed body (`Content-Encoding: gzip`, as Overland may send) inflated, at most
    /// `maximumBytes` of output: a small bomb is refused, not inflated.
    public static func inflate(_ data: Data, maximumBytes: Int) throws(TrackerPayloadError) -> Data {
        do {
            let source = try GzipSource(MemorySource(Array(data)), maximumInflatedBytes: maximumBytes)
            var output = Data()
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if count == 0 { break }
                output.append(contentsOf: buffer[0..<count])
                if output.count > maximumBytes { throw TrackerPayloadError.malformed("the body inflates to more than \(maximumBytes) bytes") }
            }
            return output
        } catch let error as TrackerPayloadError {
            throw error
        } catch {
            throw .malformed("not valid gzip: \(error)")
        }
    }
}
