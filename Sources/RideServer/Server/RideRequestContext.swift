import Foundation
import Hummingbird

/// The request context of every route: JSON answers without escaped slashes (URL templates in
/// `/api/config` stay readable), and a small default body limit; endpoints that take more read their body
/// with their own limit (`Request.decodeJSON(_:limit:)`).
public struct RideRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// 64 KiB: no endpoint that uses the default decoding needs more.
    public var maxUploadSize: Int { 64 << 10 }

    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
