import Foundation
import RideKit

/// What both stores take as a photo, whether they hold its bytes in files (SQLite) or in rows (PostgreSQL).
public enum PhotoRules {
    /// The largest photo kept, bytes: a phone's full-size JPEG fits; anything bigger is a mistake or an attack.
    public static let maximumPhotoByteCount = 25 << 20

    /// The largest thumbnail kept: a list's picture, not a photo.
    public static let maximumThumbnailByteCount = 512 << 10

    /// A photo's media type as kept: trimmed and lower-case, "type/subtype", at most 100 bytes.
    package static func mediaType(_ mediaType: String) throws -> String {
        let mediaType = mediaType.trimmingCharacters(in: .whitespaces).lowercased()
        guard !mediaType.isEmpty, mediaType.utf8.count <= 100, mediaType.contains("/") else {
            throw RideStoreError.invalid(field: "mediaType", reason: "'\(mediaType)' is not a media type such as image/jpeg")
        }
        return mediaType
    }

    /// A photo of 1 byte to `maximumPhotoByteCount`.
    package static func validate(photo bytes: Data) throws {
        guard !bytes.isEmpty, bytes.count <= maximumPhotoByteCount else {
            throw RideStoreError.invalid(field: "photo", reason: "must hold 1 byte to \(maximumPhotoByteCount >> 20) MiB")
        }
    }

    /// A thumbnail of 1 byte to `maximumThumbnailByteCount`.
    package static func validate(thumbnail bytes: Data) throws {
        guard !bytes.isEmpty, bytes.count <= maximumThumbnailByteCount else {
            throw RideStoreError.invalid(field: "thumbnail", reason: "must hold 1 byte to \(maximumThumbnailByteCount >> 10) KiB")
        }
    }
}
