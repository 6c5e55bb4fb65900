import Foundation
import NIOCore

/// The reverse proxies whose forwarding headers are believed (`ServerConfiguration.trustedProxies`): through one of
/// them, the client is the address it says it forwarded for, and the scheme the one it says the browser used. From
/// any other peer `X-Forwarded-For` and `X-Forwarded-Proto` are ignored: anyone can send them.
struct TrustedProxies: Sendable {
    let addresses: Set<String>

    init(_ addresses: [String]) { self.addresses = Set(addresses.compactMap(Self.normalized)) }

    /// An IP address in one spelling (`::ffff:10.0.0.1` is `10.0.0.1`), or nil when it is not one.
    static func normalized(_ text: String) -> String? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard let address = try? SocketAddress(ipAddress: text, port: 0).ipAddress else { return nil }
        let lowered = address.lowercased()
        if lowered.hasPrefix("::ffff:"), lowered.contains("."), let v4 = try? SocketAddress(ipAddress: String(lowered.dropFirst(7)), port: 0).ipAddress {
            return v4
        }
        return lowered
    }

    func trusts(_ address: String?) -> Bool { address.map { addresses.contains($0) } ?? false }

    /// The client behind `peer`: walking `X-Forwarded-For` from its end (the entry the nearest proxy added) while the
    /// sender is trusted; the first sender that is not, or the last address the chain names.
    func client(peer: String?, forwardedFor values: [String]) -> String? {
        guard trusts(peer) else { return peer }
        let chain = values.flatMap { $0.split(separator: ",") }.map { String($0) }
        var client = peer
        for entry in chain.reversed() {
            guard trusts(client) else { break }
            guard let address = Self.normalized(entry) else { break }
            client = address
        }
        return client
    }

    /// `https` or `http`: the scheme a trusted proxy says the browser used (its `X-Forwarded-Proto`), else `tls`'s.
    func scheme(peer: String?, forwardedProto: String?, tls: Bool) -> String {
        if trusts(peer), let proto = forwardedProto?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased(),
           proto == "https" || proto == "http" {
            return proto
        }
        return tls ? "https" : "http"
    }
}
