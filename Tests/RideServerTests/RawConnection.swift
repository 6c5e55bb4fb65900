#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// A plain TCP connection to a test server on 127.0.0.1, for what an HTTP client will not send: nothing at all,
/// half a header, a header no client would write. Its waits block a thread: they run on a dispatch queue, never on
/// the cooperative pool the server under test answers on (two threads on a two-core machine).
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port` from `source` (another loopback address, such as 127.0.0.2, is another client).
    init(port: Int, from source: String = "127.0.0.1") throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: the object is whole, so `deinit` runs when the initializer throws and closes it once.
        // (A second close could close a descriptor another thread has just been given.)
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the server sends within `seconds`, until it closes the connection or is silent that long; and whether
    /// it closed it.
    func receive(seconds: Double) async -> (text: String, closed: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.receiveBlocking(seconds: seconds)) }
        }
    }

    /// True when the server has closed the connection (or reset it) by now; does not wait.
    var isClosed: Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        if count == 0 { return true }
        if count < 0 { return !(errno == EAGAIN || errno == EWOULDBLOCK) }
        return false
    }

    private func receiveBlocking(seconds: Double) -> (text: String, closed: Bool) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
                // An answer without a body to wait for: done.
                if let text = String(bytes: received, encoding: .utf8), text.contains("\r\n\r\n"),
                   text.lowercased().contains("content-length: 0") || text.hasSuffix("}") || text.hasSuffix("\n") {
                    return (text, false)
                }
                continue
            }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            return (String(decoding: received, as: UTF8.self), true)  // reset by the server
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Waits up to `seconds` for the server to close the connection.
    func closedByServer(within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if isClosed { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return isClosed
    }
}
