import Foundation

/// A comma-separated table as RFC 4180 writes it (and as Strava writes `activities.csv`): fields in double quotes
/// may hold commas, line breaks and doubled quotes; lines end in CRLF or LF; the first line names the columns.
///
///     let table = try CSVTable(text: "Name,Kind\n\"Ride, with a comma\",Ride\n")
///     table.rows[0][table.column("Name")!]   // "Ride, with a comma"
///
/// Read in one pass over the text (linear in its length); a quote left open is an error, not a table that
/// swallows the rest of the file.
public struct CSVTable: Sendable, Hashable {
    public var header: [String]
    public var rows: [[String]]

    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case unclosedQuote(line: Int)
        case tooLarge(String)

        public var description: String {
            switch self {
            case .unclosedQuote(let line): return "CSV: a quoted field opened on line \(line) is never closed"
            case .tooLarge(let detail): return "CSV: \(detail)"
            }
        }
    }

    /// More columns than any export has: a bound on what one hostile line can ask for.
    public static let maximumColumns = 1_000

    public init(text: String) throws(Failure) {
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var quoteLine = 0
        var line = 1
        var fieldWasQuoted = false
        let bytes = Array(text.utf8)
        var index = 0
        func endField() throws(Failure) {
            record.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
            if record.count > Self.maximumColumns { throw .tooLarge("line \(line) has more than \(Self.maximumColumns) columns") }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else {
                switch byte {
                case UInt8(ascii: "\"") where field.isEmpty && !fieldWasQuoted:
                    inQuotes = true
                    fieldWasQuoted = true
                    quoteLine = line
                case UInt8(ascii: ","): try endField()
                case UInt8(ascii: "\r") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n"):
                    break
                case UInt8(ascii: "\n"):
                    try endField()
                    records.append(record)
                    record = []
                    line += 1
                default: field.append(byte)
                }
            }
            index += 1
        }
        if inQuotes { throw .unclosedQuote(line: quoteLine) }
        if !field.isEmpty || !record.isEmpty || fieldWasQuoted {
            try endField()
            records.append(record)
        }
        // Blank lines are no rows.
        records.removeAll { $0 == [""] }
        header = records.first ?? []
        rows = Array(records.dropFirst())
    }

    /// The index of the first column named `name` (an export may name two columns alike: the first is the
    /// summary's), trimmed and compared without case.
    public func column(_ name: String) -> Int? {
        let wanted = name.lowercased()
        return header.firstIndex { $0.trimmingCharacters(in: .whitespaces).lowercased() == wanted }
    }
}
