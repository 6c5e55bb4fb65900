/// Why a GPX file was refused, and where.
///
/// Every problem carries the line and column (1-based, columns counted in characters) at which the reader
/// found it, because a user fixing a file by hand needs exactly that.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The bytes are not well-formed XML (the text says how).
        case notWellFormed(String)
        /// A `<!DOCTYPE …>`: GPX never needs one, and DTDs are how entity attacks get in.
        case doctypeNotAllowed
        /// The file declares or starts with an encoding bikeride does not read.
        case unsupportedEncoding(String)
        /// The root element is not `gpx`.
        case notGPX(root: String)
        /// The file ended before the document did.
        case truncated(String)
        /// The file holds no XML at all.
        case empty
        /// A latitude or longitude that is missing, not a number, not finite or out of range.
        case invalidCoordinate(attribute: String, value: String)
        /// An element or attribute value that is not of its type (a time, a number, a year …).
        case invalidValue(element: String, value: String, expected: String)
        /// A GPX element where GPX does not allow it.
        case unexpectedElement(name: String, parent: String)
        /// A required attribute is missing.
        case missingAttribute(element: String, attribute: String)
        /// The `version` attribute is not 1.0 or 1.1.
        case unsupportedVersion(String)
        /// Elements nested deeper than the reader allows.
        case tooDeep(limit: Int)
        /// A single tag or text run longer than the reader buffers.
        case tokenTooLong(limitBytes: Int)
        /// An element with more attributes than the reader allows (GPX needs a handful).
        case tooManyAttributes(limit: Int)
        /// An element that declares more namespaces than the reader allows (GPX files declare a few, on the root).
        case tooManyNamespaceDeclarations(limit: Int)
        /// The file could not be read.
        case io(String)
        /// The gzip compression around the file is damaged, cut off, or holds too much.
        case compressed(String)
    }

    public var reason: Reason
    /// 1-based line, or 0 when the problem has no place in the file (an I/O error).
    public var line: Int
    /// 1-based column in characters.
    public var column: Int

    public init(_ reason: Reason, line: Int, column: Int) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// The problem in words, without the location.
    public var message: String {
        switch reason {
        case .notWellFormed(let text): return "not well-formed XML: \(text)"
        case .doctypeNotAllowed: return "a DOCTYPE declaration is not allowed in GPX (DTDs are refused for safety)"
        case .unsupportedEncoding(let text): return text
        case .notGPX(let root): return "the root element is <\(root)>, not <gpx>: this is not a GPX file"
        case .truncated(let text): return "the file ends too early: \(text)"
        case .empty: return "the file is empty: no XML element found"
        case .invalidCoordinate(let attribute, let value):
            let range = attribute == "lat" ? "-90…90" : "-180…180"
            return "invalid \(attribute) '\(value)': expected a finite number in \(range)"
        case .invalidValue(let element, let value, let expected):
            return "invalid <\(element)> value '\(value)': expected \(expected)"
        case .unexpectedElement(let name, let parent):
            return "unexpected element <\(name)> in <\(parent)> (use lenient mode to skip unknown elements)"
        case .missingAttribute(let element, let attribute):
            return "<\(element)> has no \(attribute) attribute"
        case .unsupportedVersion(let version):
            return "unsupported GPX version '\(version)': expected 1.0 or 1.1 (lenient mode reads it as 1.1)"
        case .tooDeep(let limit): return "elements are nested deeper than \(limit) levels"
        case .tokenTooLong(let limit): return "a single tag or text is longer than \(limit / 1_048_576) MiB"
        case .tooManyAttributes(let limit):
            return "an element has more than \(limit) attributes, which no GPX file needs"
        case .tooManyNamespaceDeclarations(let limit):
            return "an element declares more than \(limit) namespaces, which no GPX file needs"
        case .io(let text): return text
        case .compressed(let text): return text
        }
    }

    public var description: String {
        line > 0 ? "line \(line), column \(column): \(message)" : message
    }
}
