import HummingbirdCore
import NIOHTTPTypes
import Logging
import NIOCore
import Synchronization

/// Caps the connections a server holds open, in all and per client address, so that no one can take every file
/// descriptor (DESIGN 4.8): with about 1,000 idle sockets a process under the usual 1,024-descriptor limit could not
/// accept the next one, and `/health` timed out for everyone. A connection past a cap is closed as soon as it is
/// accepted (nothing is read from it), and one message a minute at most says so. The per-address cap leaves room
/// for everyone else while one address holds its share; a trusted proxy, through which every client comes, is
/// held to the overall cap only (the proxy has limits of its own). Idle and half-sent connections are closed by
/// the HTTP channel's idle timeout (`ServerConfiguration.idleTimeoutSeconds`).
final class ConnectionLimiter: Sendable {
    struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
        var lastRefusalLog: NIODeadline = .distantPast
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

    /// Counts a new connection from `address`, or returns false (and counts nothing) when it is over a cap.
    func open(_ address: String?) -> Bool {
        let (accepted, logNow, total) = state.withLock { state -> (Bool, Bool, Int) in
            let key = address ?? "?"
            let fromAddress = state.perAddress[key, default: 0]
            let overAddressCap = !exempt.contains(key) && fromAddress >= maximumPerAddress
            guard state.total < maximum, !overAddressCap else {
                let now = NIODeadline.now()
                let logNow = now - state.lastRefusalLog > .seconds(60)
                if logNow { state.lastRefusalLog = now }
                return (false, logNow, state.total)
            }
            state.total += 1
            state.perAddress[key] = fromAddress + 1
            return (true, false, state.total)
        }
        if logNow {
            logger.warning("connection refused: too many open", metadata: [
                "address": "\(address ?? "?")", "open": "\(total)", "maximum": "\(maximum)", "per address": "\(maximumPerAddress)",
            ])
        }
        return accepted
    }

    func close(_ address: String?) {
        state.withLock { state in
            let key = address ?? "?"
            state.total -= 1
            let left = state.perAddress[key, default: 1] - 1
            state.perAddress[key] = left > 0 ? left : nil
        }
    }

    /// Connections open now (tests).
    var openCount: Int { state.withLock { $0.total } }

    /// The handler of one connection, for `HTTP1Channel.Configuration.additionalChannelHandlers`.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(limiter: self) }
}

/// Counts its connection in a `ConnectionLimiter` while it is open, and closes it at once when it is over a cap.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    let limiter: ConnectionLimiter
    private var counted: String??

    init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    private func admit(_ context: ChannelHandlerContext) {
        guard counted == nil else { return }
        let address = context.channel.remoteAddress?.ipAddress.flatMap(TrustedProxies.normalized)
        if limiter.open(address) {
            counted = .some(address)
        } else {
            context.close(promise: nil)
        }
    }

    private func release() {
        guard case .some(let address) = counted else { return }
        counted = nil
        limiter.close(address)
    }
}
