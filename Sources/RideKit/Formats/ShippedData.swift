import Foundation

/// Data that ships inside the binary as gzip in base64 text (the time zone grid, the EGM96 geoid, the towns), so that
/// nothing is needed at run time: `scripts/make_*.py` write it, this reads it back.
enum ShippedData {
    /// The bytes of `base64` gzip, inflated to at most `maximumBytes`; nil if the text is damaged.
    static func unpack(_ base64: String, maximumBytes: Int) -> [UInt8]? {
        guard let gzip = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else { return nil }
        return try? DeviceFileReader.inflate([UInt8](gzip), maximumInflatedBytes: maximumBytes)
    }
}
