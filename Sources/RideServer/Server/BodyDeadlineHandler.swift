import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// How fast a request body must arrive (`ServerConfiguration.minimumBodyBytesPerSecond`, `bodyRateWindowSeconds`,
/// `bodyTimeoutSeconds`).
struct BodyDeadline: Sendable, Hashable {
    /// Each window must bring at least this many bytes a second of the time the server was waiting for them.
    var minimumBytesPerSecond: Int
    /// The rate is judged over windows of this length; the first one is the grace a request has to get going.
    var windowSeconds: Double
    /// The whole body must have arrived within this many seconds of waiting, however fast it comes.
    var wholeBodySeconds: Double

    /// What the handler decides at the end of a window: `bytes` came in it while the server waited `waitedSeconds`
    /// for them (`totalWaitedSeconds` since the request's header).
    ///
    ///     deadline.verdict(bytes: 500, waitedSeconds: 10, totalWaitedSeconds: 10)  // .tooSlow with 1,024 B/s
    func verdict(bytes: Int, waitedSeconds: Double, totalWaitedSeconds: Double) -> BodyDeadlineVerdict {
        if totalWaitedSeconds >= wholeBodySeconds { return .tooLong }
        // A window in which the server held the client back (its handler was busy and read nothing) for more than
        // half the time says nothing about the client.
        guard waitedSeconds >= windowSeconds / 2 else { return .inTime }
        return Double(bytes) < Double(minimumBytesPerSecond) * waitedSeconds ? .tooSlow : .inTime
    }
}

enum BodyDeadlineVerdict: Equatable {
    case inTime
    case tooSlow
    case tooLong
}

/// Closes a connection whose request body trickles in: a client sending a byte every few seconds stays within the
/// idle timeout (each byte is activity) and would hold its connection, and the request's handler, for ever.
///
/// From a request's header to its end, every `windowSeconds` the body must have brought `minimumBytesPerSecond` for
/// each second the server was waiting for it, and the whole body must arrive within `wholeBodySeconds`. Time during
/// which the server itself read nothing (its handler was busy: back-pressure holds the socket's reads) is not
/// counted against the client: the clock runs only while a read is asked for and no bytes have come. Past either
/// limit the answer is 408 (`body_timeout`, JSON like every error) when no answer to the request has started, and
/// the connection is closed either way.
final class BodyDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let deadline: BodyDeadline
    let logger: Logger

    /// Requests whose header has come and whose answer has not ended.
    private var requestsOpen = 0
    /// An answer's head has been written and its end not yet.
    private var answering = false
    /// A body is being read.
    private var reading = false
    private var windowBytes = 0
    /// Nanoseconds the server waited for the client in this window, and since the request's header.
    private var windowWaited: Int64 = 0
    private var totalWaited: Int64 = 0
    /// When the read asked for began (nil: none is waiting for the client).
    private var waitingSince: NIODeadline?
    private var timer: Scheduled<Void>?
    private var closed = false

    init(deadline: BodyDeadline, logger: Logger) {
        self.deadline = deadline
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsOpen += 1
            reading = true
            windowBytes = 0
            windowWaited = 0
            totalWaited = 0
            // The header's own read: from now on the clock runs for the body.
            if waitingSince != nil { waitingSince = .now() }
            scheduleCheck(context)
        case .body(let buffer):
            windowBytes += buffer.readableBytes
        case .end:
            reading = false
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        stopWaiting()
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if waitingSince == nil { waitingSince = .now() }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head: answering = true
        case .body: break
        case .end:
            answering = false
            requestsOpen = max(0, requestsOpen - 1)
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancel() }

    private func cancel() {
        timer?.cancel()
        timer = nil
        reading = false
    }

    /// Adds the wait so far to the window's.
    private func stopWaiting() {
        guard let since = waitingSince else { return }
        let waited = (NIODeadline.now() - since).nanoseconds
        if reading {
            windowWaited += waited
            totalWaited += waited
        }
        waitingSince = nil
    }

    private func scheduleCheck(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let delay = TimeAmount.nanoseconds(Int64(deadline.windowSeconds * 1_000_000_000))
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            handler.check(context)
        }
    }

    private func check(_ context: ChannelHandlerContext) {
        timer = nil
        guard reading, !closed else { return }
        // A read still waiting counts up to now, and goes on counting in the next window.
        if waitingSince != nil {
            stopWaiting()
            waitingSince = .now()
        }
        let bytes = windowBytes
        let verdict = deadline.verdict(
            bytes: bytes, waitedSeconds: Double(windowWaited) / 1e9, totalWaitedSeconds: Double(totalWaited) / 1e9)
        windowBytes = 0
        windowWaited = 0
        guard verdict != .inTime else {
            scheduleCheck(context)
            return
        }
        let message = verdict == .tooSlow
            ? "the request body came slower than \(deadline.minimumBytesPerSecond) bytes a second; send it again on a faster connection"
            : "the request body did not arrive within \(Int(deadline.wholeBodySeconds)) seconds; send it again on a faster connection"
        logger.info("request body too slow: connection closed", metadata: [
            "address": "\(context.channel.remoteAddress?.ipAddress ?? "?")", "reason": "\(verdict)", "bytes in the last window": "\(bytes)"])
        // 408 unless an answer has started (or an earlier request's is still being written): then only the close.
        if !answering, requestsOpen == 1 {
            let body = APIErrorBody(error: .init(code: "body_timeout", message: message))
            let data = (try? JSONEncoder().encode(body)) ?? Data()
            var head = HTTPResponse(status: .requestTimeout)
            head.headerFields[.contentType] = "application/json; charset=utf-8"
            head.headerFields[.contentLength] = String(data.count)
            head.headerFields[.connection] = "close"
            head.headerFields[.cacheControl] = "no-store"
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(ByteBuffer(bytes: data))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        closed = true
        reading = false
        context.close(promise: nil)
    }
}
