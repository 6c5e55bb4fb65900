/// Why the `Recorder` refused a command or a batch. Nothing changes when it throws.
public enum RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A fix with an impossible value; the whole batch is refused.
    case invalidFix(sequence: Int64, field: String, reason: String)
    /// The command does not apply in the recording's state (resume when not paused, fixes after stop …).
    case invalidTransition(command: String, state: RecorderState)
    /// A batch with more fixes than a client sends at once.
    case batchTooLarge(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidFix(let sequence, let field, let reason):
            return "fix \(sequence): \(field) \(reason)"
        case .invalidTransition(let command, let state):
            return "cannot \(command) a recording that is \(state.rawValue)"
        case .batchTooLarge(let count, let limit):
            return "a batch holds at most \(limit) fixes, this one has \(count); send them in smaller batches"
        }
    }
}
