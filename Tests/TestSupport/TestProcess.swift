import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests, started with `posix_spawn`: the part of Foundation's `Process` the tests use
/// (executable, arguments, standard streams as a `Pipe` or a `FileHandle`, run, wait, terminate, status).
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` copying 256 bytes of each directory
/// entry, past the end of `readdir`'s buffer (swift-corelibs-foundation#5472, fixed upstream after Swift 6.3).
/// When the last entry lies just before an unmapped page the whole test process dies with SIGSEGV, as one CI
/// run did; AddressSanitizer shows the overflow on every run.
///
/// The child gets the given streams and no other descriptor of the test process (`closefrom(3)` when the C
/// library has it), so a pipe another test is reading is never held open by this child.
public final class TestProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    /// A `Pipe` (the child gets its reading end) or a `FileHandle`; nil: the test process's own.
    public var standardInput: Any?
    /// A `Pipe` (the child gets its writing end) or a `FileHandle`; nil: the test process's own.
    public var standardOutput: Any?
    public var standardError: Any?
    /// Where the child starts; nil: the test process's directory.
    public var currentDirectoryURL: URL?

    public private(set) var processIdentifier: pid_t = 0
    private let lock = NSLock()
    private var waitStatus: Int32?

    public init() {}

    public func run() throws {
        guard let executable = executableURL?.path else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The pipe ends that belong to the child, closed in this process once it runs.
        var childEnds: [FileHandle] = []
        func wire(_ stream: Any?, to target: Int32, childReads: Bool) {
            switch stream {
            case let pipe as Pipe:
                let end = childReads ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
                childEnds.append(end)
            case let handle as FileHandle where handle.fileDescriptor >= 0:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            case is FileHandle:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
            default:
                break
            }
        }
        wire(standardInput, to: 0, childReads: true)
        wire(standardOutput, to: 1, childReads: false)
        wire(standardError, to: 2, childReads: false)
        if let directory = currentDirectoryURL?.path {
            guard let addChdir = Self.addChdir else { throw POSIXError(.ENOSYS) }
            _ = directory.withCString { addChdir(&actions, $0) }
        }
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        processIdentifier = pid
        for end in childEnds { try? end.close() }
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        if lock.withLock({ waitStatus }) != nil { return }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
        lock.withLock { waitStatus = status }
    }

    public var isRunning: Bool {
        if lock.withLock({ waitStatus }) != nil { return false }
        var status: Int32 = 0
        guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return true }
        lock.withLock { waitStatus = status }
        return false
    }

    /// SIGTERM.
    public func terminate() { kill(processIdentifier, SIGTERM) }

    /// The exit status, or the signal that ended the child (as Foundation's `Process` gives it).
    public var terminationStatus: Int32 {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    public var terminationReason: Process.TerminationReason {
        let status = lock.withLock { waitStatus } ?? 0
        return status & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    // glibc's `_np` additions (2.29, 2.34), which Swift's Glibc module does not import: looked up by name.
    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let closeFrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }
}
