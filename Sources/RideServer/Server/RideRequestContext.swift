import Foundation
import Hummingbird
import NIOCore
import RideStore

/// The request context of every route: JSON answers without escaped slashes (URL templates in
/// `/api/config` stay readable), and a small default body limit; endpoints that take more read their body
/// with their own limit (`Request.decodeJSON(_:limit:)`).
public struct RideRequestContext: UserRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Whose request this is: set by `AuthenticationMiddleware` (the local user when accounts are off).
    public var userID: UserID?
    /// The client's IP address (login rate limits), when known: the peer's, or the one a trusted proxy forwarded.
    public var remoteIPAddress: String?
    /// `https` or `http`, as the client sent the request (`RequestGuardMiddleware`).
    public var clientScheme = "http"

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteIPAddress = source.channel.remoteAddress?.ipAddress.flatMap(TrustedProxies.normalized)
    }

    /// 64 KiB: no endpoint that uses the default decoding needs more.
    public var maxUploadSize: Int { 64 << 10 }

    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
