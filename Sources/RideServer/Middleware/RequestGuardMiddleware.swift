import Foundation
import Hummingbird

/// What every request passes first: who sent it (the peer, or the client a trusted proxy forwarded for, and the
/// scheme it used), and whether it names a host this server serves.
///
/// **Host.** With accounts off (the default on 127.0.0.1) nothing but the address stands between a web page and the
/// data, so a page on a name its owner points at 127.0.0.1 (DNS rebinding) must not be answered as if it were this
/// server: a request whose `Host` is not a loopback name or address, the configured `--host`, or the host of
/// `--public-url` answers 421 (Misdirected Request). The same check applies whenever `--public-url` is given. With
/// accounts on and no public URL the names the server is reached by are not known, and the session cookie (bound to
/// the name the browser logged in on) is what protects the data.
struct RequestGuardMiddleware<Context: UserRequestContext>: RouterMiddleware {
    let proxies: TrustedProxies
    let hosts: ServedHosts?
    let usesTLS: Bool

    init(configuration: ServerConfiguration) {
        proxies = TrustedProxies(configuration.trustedProxies)
        hosts = configuration.requiresAccounts && configuration.publicURL == nil ? nil : ServedHosts(configuration: configuration)
        usesTLS = configuration.usesTLS
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let peer = context.remoteIPAddress
        context.remoteIPAddress = proxies.client(peer: peer, forwardedFor: request.headers[values: .xForwardedFor])
        context.clientScheme = proxies.scheme(peer: peer, forwardedProto: request.headers[.xForwardedProto], tls: usesTLS)
        if let hosts, !hosts.serves(authority: request.head.authority) {
            throw APIError(.misdirectedRequest, code: "unknown_host",
                message: "this server does not serve that host name (give it with --public-url if it should)")
        }
        return try await next(request, context)
    }
}

/// The host names a server answers to (`RequestGuardMiddleware`): loopback names and addresses, `--host`, the
/// host of `--public-url`, and any IP address when it listens on every interface (a name bound to an address is what
/// a rebinding page needs; an address typed in the browser's bar is a page of this server's own).
struct ServedHosts: Sendable {
    let names: Set<String>
    let anyAddress: Bool

    init(configuration: ServerConfiguration) {
        var names: Set<String> = []
        let host = configuration.host.lowercased()
        anyAddress = host == "0.0.0.0" || host == "::" || host == "[::]"
        if !anyAddress { names.insert(Self.bare(host)) }
        if let url = configuration.publicURL.flatMap(URL.init(string:)), let name = url.host(percentEncoded: false) {
            names.insert(Self.bare(name.lowercased()))
        }
        self.names = names
    }

    /// `[::1]` → `::1`.
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// The host name of a `Host` header (`name:port`, `[v6]:port`), lower case, without its port.
    static func hostName(of authority: String) -> String {
        let text = authority.lowercased()
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<end]) }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }

    func serves(authority: String?) -> Bool {
        // HTTP/1.0 without Host: no browser sends that.
        guard let authority, !authority.isEmpty else { return true }
        let name = Self.hostName(of: authority)
        if name == "localhost" || name.hasSuffix(".localhost") || names.contains(name) { return true }
        guard let address = TrustedProxies.normalized(name) else { return false }
        return anyAddress || ServerConfiguration.isLoopback(address) || names.contains(address)
    }
}
