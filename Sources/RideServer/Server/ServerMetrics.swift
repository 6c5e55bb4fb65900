import Foundation

/// A few counters, exported in Prometheus's text format at `GET /metrics`.
///
/// Hand-rolled rather than swift-metrics with a Prometheus backend: a handful of counters do not need
/// another dependency.
public final class ServerMetrics: @unchecked Sendable {
    /// The counters, with their Prometheus names and help.
    public enum Counter: String, CaseIterable, Sendable {
        case recordingsStarted = "bikeride_recordings_started_total"
        case recordingsStopped = "bikeride_recordings_stopped_total"
        case recordingCacheMisses = "bikeride_recording_cache_misses_total"
        case fixesStored = "bikeride_fixes_stored_total"
        case fixesDuplicate = "bikeride_fixes_duplicate_total"
        case fixesSkipped = "bikeride_fixes_skipped_total"
        case tilesServed = "bikeride_tiles_served_total"
        case ingestFixesStored = "bikeride_ingest_fixes_stored_total"
        case ingestFixesDuplicate = "bikeride_ingest_fixes_duplicate_total"
        case ingestFixesRefused = "bikeride_ingest_fixes_refused_total"

        var help: String {
            switch self {
            case .recordingsStarted: return "Recordings started."
            case .recordingsStopped: return "Recordings stopped and saved as tracks."
            case .recordingCacheMisses: return "Recorders rebuilt because another instance changed their recording."
            case .fixesStored: return "Fixes stored in recordings."
            case .fixesDuplicate: return "Fixes received again (already stored) and not stored twice."
            case .fixesSkipped: return "Fixes acknowledged but not stored (paused, or too inaccurate)."
            case .tilesServed: return "Map tiles served from the MBTiles file."
            case .ingestFixesStored: return "Positions from phone apps stored."
            case .ingestFixesDuplicate: return "Positions from phone apps received again and not stored twice."
            case .ingestFixesRefused: return "Positions or posts from phone apps refused (bad values, wrong format), with a logged reason."
            }
        }
    }

    private let lock = NSLock()
    private var counters: [Counter: Int] = [:]
    /// Requests by method and status code.
    private var requests: [String: Int] = [:]

    public init() {}

    public func increment(_ counter: Counter, by amount: Int = 1) {
        guard amount != 0 else { return }
        lock.withLock { counters[counter, default: 0] += amount }
    }

    /// Counts one answered request.
    public func countRequest(method: String, status: Int) {
        let key = "method=\"\(method)\",status=\"\(status)\""
        lock.withLock { requests[key, default: 0] += 1 }
    }

    /// The value of a counter.
    public func value(_ counter: Counter) -> Int { lock.withLock { counters[counter, default: 0] } }

    /// All counters as Prometheus text exposition format 0.0.4.
    public func prometheusText() -> String {
        let (counters, requests) = lock.withLock { (self.counters, self.requests) }
        var text = "# HELP bikeride_http_requests_total HTTP requests answered, by method and status.\n"
        text += "# TYPE bikeride_http_requests_total counter\n"
        for (labels, count) in requests.sorted(by: { $0.key < $1.key }) {
            text += "bikeride_http_requests_total{\(labels)} \(count)\n"
        }
        for counter in Counter.allCases {
            text += "# HELP \(counter.rawValue) \(counter.help)\n# TYPE \(counter.rawValue) counter\n"
            text += "\(counter.rawValue) \(counters[counter, default: 0])\n"
        }
        return text
    }
}
