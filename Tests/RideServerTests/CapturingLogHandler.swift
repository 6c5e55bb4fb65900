import Foundation
import Logging
import Synchronization

/// A log handler that keeps every record as one line of text (message, then `key=value` metadata), for tests that
/// look at what the server logs.
struct CapturingLogHandler: LogHandler {
    final class Records: Sendable {
        private let lines = Mutex<[String]>([])
        var messages: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    let records: Records
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    /// A logger at trace level and what it keeps.
    static func logger() -> (Logger, Records) {
        let records = Records()
        return (Logger(label: "test") { _ in CapturingLogHandler(records: records) }, records)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        records.append("\(event.level) \(event.message) \(fields)")
    }
}
