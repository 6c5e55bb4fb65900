import Foundation
import RideKit

/// Which imported files both stores keep as they came (issue 23: "every track as GPX, and FIT when it came as
/// FIT"): FIT files up to 16 MiB. GPX, TCX and the others are text that bikeride writes back faithfully; a FIT
/// file holds what no GPX can (device fields, developer data, its own CRC), so its bytes are kept, in a table of
/// their own beside the import (`importOriginal` / `import_originals`). 16 MiB is many times a long ride's file
/// (a 24-hour ride at 1 s is about 2 MB) and bounds what one import adds.
package enum OriginalFileRules {
    package static let maximumByteCount = 16 << 20

    /// Whether an import of `format` and `byteCount` bytes keeps its bytes.
    package static func keeps(format: TrackFileFormat, byteCount: Int) -> Bool {
        format == .fit && byteCount > 0 && byteCount <= maximumByteCount
    }

    /// The bytes to keep of `batch`, or nil.
    package static func bytes(of batch: TrackImport) -> Data? {
        guard let bytes = batch.originalBytes, keeps(format: batch.source.format, byteCount: bytes.count) else { return nil }
        return bytes
    }
}
