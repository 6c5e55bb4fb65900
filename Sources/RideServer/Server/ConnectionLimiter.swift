#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HummingbirdCore
import NIOHTTPTypes
import Logging
import NIOCore
import Synchronization

/// Caps the connections a server holds open, in all and per client address, so that no one can take every file
/// descriptor (DESIGN 4.8): with about 1,000 idle sockets a process under the usual 1,024-descriptor limit could not
/// accept the next one, and `/health` timed out for everyone.
///
/// - One address may hold `maximumPerAddress` connections; past that its new ones are closed as soon as they are
///   accepted (nothing is read from them). A trusted proxy, through which every client comes, is held to the
///   overall cap only (the proxy has limits of its own).
/// - At the overall cap, a new connection takes the place of the one that has been idle longest — no request
///   being read or answered: a silent socket, half a header, a keep-alive between requests — which is closed. So
///   sockets held open by many addresses cannot keep a real request (`/health`, a phone's post) out; only when
///   every connection is busy is the new one closed.
///
/// At most one message a minute says that connections were refused. Idle and half-sent connections are also closed
/// by the HTTP channel's idle timeout (`ServerConfiguration.idleTimeoutSeconds`).
final class ConnectionLimiter: Sendable {
    struct Entry {
        let channel: any Channel
        let address: String
        /// A request is being read or answered.
        var busy = false
        var lastActive: NIODeadline
    }

    struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perAddress: [String: Int] = [:]
        var lastRefusalLog: NIODeadline = .distantPast

        mutating func remove(_ id: ObjectIdentifier) -> Entry? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            let left = perAddress[entry.address, default: 1] - 1
            perAddress[entry.address] = left > 0 ? left : nil
            return entry
        }
    }

    let maximum: Int
    let maximumPerAddress: Int
    let exempt: Set<String>
    let logger: Logger
    private let state = Mutex(State())

    init(maximum: Int, maximumPerAddress: Int, exempt: Set<String>, logger: Logger) {
        self.maximum = maximum
        self.maximumPerAddress = maximumPerAddress
        self.exempt = exempt
        self.logger = logger
    }

    /// Counts a new connection from `address`, making room by closing the longest-idle one at the overall cap; or
    /// returns false (and counts nothing) when it cannot be let in.
    func open(_ channel: any Channel, address: String?) -> Bool {
        let key = address ?? "?"
        let id = ObjectIdentifier(channel)
        let (accepted, evicted, logNow, total) = state.withLock { state -> (Bool, (any Channel)?, Bool, Int) in
            let now = NIODeadline.now()
            func refuse() -> (Bool, (any Channel)?, Bool, Int) {
                let logNow = now - state.lastRefusalLog > .seconds(60)
                if logNow { state.lastRefusalLog = now }
                return (false, nil, logNow, state.entries.count)
            }
            let fromAddress = state.perAddress[key, default: 0]
            if !exempt.contains(key), fromAddress >= maximumPerAddress { return refuse() }
            var evicted: (any Channel)?
            if state.entries.count >= maximum {
                guard let idle = state.entries.filter({ !$0.value.busy }).min(by: { $0.value.lastActive < $1.value.lastActive })?.key
                else { return refuse() }
                evicted = state.remove(idle)?.channel
            }
            state.entries[id] = Entry(channel: channel, address: key, lastActive: now)
            state.perAddress[key] = state.perAddress[key, default: 0] + 1
            return (true, evicted, false, state.entries.count)
        }
        evicted?.close(promise: nil)
        if logNow {
            logger.warning("connection refused: too many open", metadata: [
                "address": "\(key)", "open": "\(total)", "maximum": "\(maximum)", "per address": "\(maximumPerAddress)",
            ])
        }
        return accepted
    }

    /// The connection closed (or was closed to make room; then nothing is left to count).
    func close(_ channel: any Channel) {
        _ = state.withLock { $0.remove(ObjectIdentifier(channel)) }
    }

    /// A request started (`busy`) or its answer ended.
    func setBusy(_ channel: any Channel, _ busy: Bool) {
        state.withLock { state in
            let id = ObjectIdentifier(channel)
            guard state.entries[id] != nil else { return }
            state.entries[id]?.busy = busy
            state.entries[id]?.lastActive = .now()
        }
    }

    /// Descriptors kept for what is not a connection: the database and its WAL (several per connection pool),
    /// photos and tiles being read, uploads being spooled, the live notifications' socket.
    static let reservedDescriptors = 128

    /// `configured`, lowered to fit this process's limit of open files (`RLIMIT_NOFILE`) with
    /// `reservedDescriptors` to spare (but not below 16), so that connections alone can never use up the descriptors
    /// the rest needs.
    ///
    ///     effectiveMaximum(configured: 512, descriptorLimit: 1024)  // 512
    ///     effectiveMaximum(configured: 512, descriptorLimit: 256)   // 128
    static func effectiveMaximum(configured: Int, descriptorLimit: Int?) -> Int {
        guard let descriptorLimit else { return configured }
        return min(configured, max(16, descriptorLimit - reservedDescriptors))
    }

    /// The soft limit of open files, or nil when unlimited or unknown.
    static func descriptorLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
        #endif
        // RLIM_INFINITY is the largest value: nothing above Int.max is a limit.
        return limit.rlim_cur >= UInt64(Int.max) ? nil : Int(limit.rlim_cur)
    }

    /// Connections open now (tests).
    var openCount: Int { state.withLock { $0.entries.count } }

    /// The handler of one connection, for `HTTP1Channel.Configuration.additionalChannelHandlers`.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(limiter: self) }
}

/// Counts its connection in a `ConnectionLimiter` while it is open, closes it at once when it cannot be let in,
/// and tells the limiter when a request is being read or answered (a busy connection is never closed to make room).
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let limiter: ConnectionLimiter
    private var counted = false

    init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release(context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release(context) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if counted, case .head = unwrapInboundIn(data) { limiter.setBusy(context.channel, true) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if counted, case .end = unwrapOutboundIn(data) { limiter.setBusy(context.channel, false) }
        context.write(data, promise: promise)
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        let address = context.channel.remoteAddress?.ipAddress.flatMap(TrustedProxies.normalized)
        if limiter.open(context.channel, address: address) {
            counted = true
        } else {
            context.close(promise: nil)
        }
    }

    private func release(_ context: ChannelHandlerContext) {
        guard counted else { return }
        counted = false
        limiter.close(context.channel)
    }
}
