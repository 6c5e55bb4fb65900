import Foundation
import HummingbirdCore

extension URI {
    /// The query's values as a browser's form or `URLSearchParams` writes them: `+` is a space and `%2B` a plus
    /// (Hummingbird's `queryParameters` decodes percent escapes only, so `?q=Morning+Ride` would search for
    /// "Morning+Ride"). Every parameter of that name, in order; linear in the query's length.
    ///
    ///     URI("/api/tracks?q=Morning+Ride&q=a%2Bb").formQueryValues("q")  // ["Morning Ride", "a+b"]
    func formQueryValues(_ name: String) -> [String] {
        guard let query, !query.isEmpty else { return [] }
        var values: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard Self.formDecoded(parts[0]) == name else { continue }
            // A value that is not valid percent-encoded UTF-8 is taken as written rather than dropped.
            values.append(parts.count > 1 ? (Self.formDecoded(parts[1]) ?? String(parts[1])) : "")
        }
        return values
    }

    /// The first value of `name` in the query, form-decoded (see `formQueryValues`).
    func formQueryValue(_ name: String) -> String? {
        formQueryValues(name).first
    }

    private static func formDecoded(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
