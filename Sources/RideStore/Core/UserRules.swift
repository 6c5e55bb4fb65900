import Foundation
import RideKit

/// The rules of an account that both stores follow.
package enum UserRules {
    /// The longest user name kept, in UTF-8 bytes.
    package static let maximumNameByteCount = 1000

    /// A new user's name as kept: trimmed, not empty, at most 1,000 bytes, no NUL (PostgreSQL refuses one).
    package static func name(_ name: String) throws -> String {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw RideStoreError.invalid(field: "name", reason: "a user needs a name") }
        guard name.utf8.count <= maximumNameByteCount else { throw RideStoreError.invalid(field: "name", reason: "is longer than 1,000 bytes") }
        guard !name.utf8.contains(0) else { throw RideStoreError.invalid(field: "name", reason: "must not contain a NUL character") }
        return name
    }
}
