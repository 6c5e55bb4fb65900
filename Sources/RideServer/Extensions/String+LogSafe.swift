extension StringProtocol {
    /// The text as it may go into a log line: control characters (a newline, a carriage return, an escape) and
    /// the other invisible separators are written as `\u{…}`, so that a value sent by a client (a login name)
    /// cannot start a line of its own or hide what follows; at most `limit` characters.
    ///
    ///     "anna\nlogin ok".logSafe  // "anna\u{A}login ok"
    func logSafe(limit: Int) -> String {
        var text = ""
        for scalar in prefix(limit).unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// `logSafe(limit: 100)`.
    var logSafe: String { logSafe(limit: 100) }
}
