import HTTPTypes

extension HTTPField.Name {
    /// The id of the last server-sent event a reconnecting `EventSource` received.
    static let lastEventID = Self("Last-Event-ID")!
    /// What a TLS-terminating proxy says the browser used (`https`).
    static let xForwardedProto = Self("X-Forwarded-Proto")!
    /// Browsers' fetch metadata: `same-origin` for the page's own requests.
    static let secFetchSite = Self("Sec-Fetch-Site")!
    /// Asks nginx not to buffer a stream.
    static let xAccelBuffering = Self("X-Accel-Buffering")!
    /// Reloads a page after this many seconds (the live share page: no script needed).
    static let refresh = Self("Refresh")!
}

extension HTTPField.Name {
    /// The client addresses a reverse proxy forwarded for (believed only from a trusted proxy).
    static let xForwardedFor = Self("X-Forwarded-For")!
    /// Which pages may link with what (`SecurityHeadersMiddleware`).
    static let referrerPolicy = Self("Referrer-Policy")!
    /// The old form of CSP's `frame-ancestors`.
    static let xFrameOptions = Self("X-Frame-Options")!
}
