import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import Logging
import ServiceLifecycle
import RideKit
import RideStore

/// The application: the router of `buildRouter`, served over HTTP or, with `tlsCertificatePath` and
/// `tlsKeyPath`, HTTPS. Graceful shutdown on SIGINT/SIGTERM comes with `runService()`: the server stops
/// accepting, finishes the requests in flight, then returns.
///
/// `library` is the store and its user: recordings and saved tracks (`bikeride serve` opens the data
/// directory's SQLite store; tests open one in a temporary folder). `onServerRunning` is called with the port
/// once the server listens (and signals stop it gracefully).
public func buildApplication(
    configuration: ServerConfiguration,
    library: TrackLibrary,
    metrics: ServerMetrics = ServerMetrics(),
    workGates: WorkGates? = nil,
    logger: Logger? = nil,
    onServerRunning: @escaping @Sendable (_ port: Int?) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "bikeride")
    logger.logLevel = configuration.logLevel
    let tiles = try configuration.tilesPath.map { path throws(MBTilesError) in try MBTilesReader(path: path) }
    let liveFeed = LiveFeed()
    let router = buildRouter(
        configuration: configuration, library: library, tiles: tiles, metrics: metrics, liveFeed: liveFeed,
        workGates: workGates ?? WorkGates(configuration: configuration), logger: logger)
    // Connections: capped in all and per address, and closed when idle, half-sent or trickling a body (DESIGN 4.8).
    let descriptorLimit = ConnectionLimiter.descriptorLimit()
    let maximumConnections = ConnectionLimiter.effectiveMaximum(configured: configuration.maximumConnections, descriptorLimit: descriptorLimit)
    if maximumConnections < configuration.maximumConnections {
        logger.notice("fewer connections than configured: the process may open few files", metadata: [
            "maximum connections": "\(maximumConnections)", "open files limit": "\(descriptorLimit ?? 0)"])
    }
    let limiter = ConnectionLimiter(
        maximum: maximumConnections, maximumPerAddress: configuration.maximumConnectionsPerAddress,
        exempt: TrustedProxies(configuration.trustedProxies).addresses, logger: logger)
    let bodyDeadline = configuration.bodyDeadline
    let connectionLogger = logger
    let http1 = HTTPServerBuilder.http1(configuration: .init(
        additionalChannelHandlers: [limiter.handler(), BodyDeadlineHandler(deadline: bodyDeadline, logger: connectionLogger)],
        idleTimeout: .nanoseconds(Int64(configuration.idleTimeoutSeconds * 1_000_000_000))))
    let server: HTTPServerBuilder
    if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
        let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
        let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        server = try .tls(http1, tlsConfiguration: tls)
    } else {
        server = http1
    }
    var services: [any Service] = [
        IdleDeviceTracks(store: library.store, gapSeconds: configuration.deviceTrackGapSeconds, logger: logger),
        EffortsBackfill(store: library.store, logger: logger),
        ImportJobSweeper(store: library.store, uploadsFolder: library.uploadsFolder, logger: logger),
    ]
    // Several instances on one database: a post to another instance wakes this one's live views at once.
    if let shared = library.store as? any MultiInstanceStore {
        services.append(LiveNotificationRelay(store: shared, feed: liveFeed, logger: logger))
    }
    return Application(
        router: router,
        server: server,
        configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "bikeride"),
        services: services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port) },
        logger: logger
    )
}

/// Every route: the API, health and metrics, map tiles, Leaflet and the web app's files.
public func buildRouter(
    configuration: ServerConfiguration,
    library: TrackLibrary,
    tiles: MBTilesReader? = nil,
    metrics: ServerMetrics = ServerMetrics(),
    liveFeed: LiveFeed = LiveFeed(),
    passwordWork: PasswordWork = PasswordWork(),
    workGates: WorkGates? = nil,
    logger: Logger = Logger(label: "bikeride")
) -> Router<RideRequestContext> {
    let workGates = workGates ?? WorkGates(configuration: configuration)
    let router = Router(context: RideRequestContext.self)
    // Imports through the server are held to its limits (the command line's are not).
    var library = library
    library.limits = configuration.storageLimits

    let leafletInstalled = FileManager.default.fileExists(atPath: configuration.leafletDirectory + "/leaflet.js")
    // Security headers on every answer, errors included (so outside the error middleware).
    router.add(middleware: SecurityHeadersMiddleware(
        scriptOrigins: leafletInstalled ? [] : [ServerConfiguration.origin(of: configuration.leafletFallbackURL)].compactMap { $0 }))
    router.add(middleware: ErrorMiddleware(metrics: metrics))
    router.add(middleware: RequestLogMiddleware(level: .debug))
    // Who sent it (through a trusted proxy) and whether its Host is one this server serves.
    router.add(middleware: RequestGuardMiddleware(configuration: configuration))
    // Whose request it is, before anything (the web app's files too) is answered.
    let sessions = SessionAuthority(store: library.store, usesTLS: configuration.usesTLS)
    router.add(middleware: AuthenticationMiddleware(
        sessions: sessions, localUserID: library.userID, accountsRequired: configuration.requiresAccounts,
        publicOrigin: configuration.publicURL.flatMap(ServerConfiguration.origin(of:))))
    // The web app and Leaflet: only for requests no route answered (FileMiddleware acts on 404).
    router.add(middleware: FileMiddleware(configuration.webRoot, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true, logger: logger)
        .withAdditionalMediaType(.init(type: .application, subType: "manifest+json"), mappedToFileExtension: "webmanifest"))
    if leafletInstalled {
        router.add(middleware: FileMiddleware(
            configuration.leafletDirectory, urlBasePath: "/vendor/leaflet", cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])]), logger: logger))
    } else {
        logger.notice("Leaflet not found; the web app loads it from the public copy", metadata: ["looked in": "\(configuration.leafletDirectory)"])
        let fallback = configuration.leafletFallbackURL
        router.get("vendor/leaflet/**") { request, _ in
            let path = request.uri.path.dropFirst("/vendor/leaflet".count)
            return Response.redirect(to: fallback + path, type: .found)
        }
    }

    HealthController<RideRequestContext>(metrics: metrics, storage: "store", version: "0.1.0").addRoutes(to: router)
    AppConfigController<RideRequestContext>(configuration: configuration, tiles: tiles).addRoutes(to: router)
    SimulationController<RideRequestContext>(library: library).addRoutes(to: router)
    RecordingsController<RideRequestContext>(services: RecordingServices(library: library, metrics: metrics))
        .addRoutes(to: router.group("api/recordings"))
    TracksController<RideRequestContext>(library: library, archiveGate: workGates.archiveImports).addRoutes(to: router.group("api/tracks"))
    ImportsController<RideRequestContext>(library: library).addRoutes(to: router)
    HeatmapController<RideRequestContext>(library: library).addRoutes(to: router)
    PlacesController<RideRequestContext>(library: library).addRoutes(to: router)
    LabelsController<RideRequestContext>(library: library).addRoutes(to: router.group("api/labels"))
    AcrossRidesController<RideRequestContext>(library: library).addRoutes(to: router)
    // The live and place share pages' map: the offline tile set's tiles, else the standard map's (`ShareMap`).
    let shareMap = ShareMap(
        offlineTiles: tiles?.metadata.format == "png", standardTilesURL: configuration.standardTilesURL,
        attribution: configuration.standardTilesAttribution, offlineAttribution: tiles.flatMap { $0.metadata.attribution ?? $0.metadata.name })
    SharesController<RideRequestContext>(library: library, map: shareMap).addRoutes(to: router)
    PhotosController<RideRequestContext>(library: library).addRoutes(to: router)
    GeocodeController<RideRequestContext>(
        geocoder: configuration.geocoder.map { Geocoder(configuration: $0) }, library: library, gazetteer: { await Gazetteer.loaded() }
    ).addRoutes(to: router)
    // Failed logins: in the database when several instances share it (they add up across them), else in memory.
    let limiter: any LoginFailureCounter =
        (library.store as? any MultiInstanceStore)?.loginFailureCounter(limits: configuration.loginLimits)
        ?? LoginRateLimiter(limits: configuration.loginLimits)
    AccountsController<RideRequestContext>(
        store: library.store, sessions: sessions, limiter: limiter, work: passwordWork,
        accountsRequired: configuration.requiresAccounts, hasher: configuration.passwordHasher
    ).addRoutes(to: router)
    // The phone apps' tokens seen lately, which a rotation or a deletion through this server forgets at once.
    let deviceTokens = DeviceTokenCache()
    DevicesController<RideRequestContext>(library: library, tokens: deviceTokens, publicURL: configuration.publicURL).addRoutes(to: router)
    IngestController<RideRequestContext>(
        store: library.store, feed: liveFeed, metrics: metrics, ownTracksSecret: configuration.ownTracksSecret,
        familySharing: configuration.requiresAccounts,
        // A batch on PostgreSQL is a few round trips a post where a device starts its track (the track, its recording,
        // its first figures), so it holds fewer posts: 600 devices starting at once on a loaded machine outlasted the
        // 30 s a transaction may take. SQLite's are in-process statements.
        committer: IngestCommitter(
            store: library.store, gapSeconds: configuration.deviceTrackGapSeconds, maximumTrackPoints: configuration.storageLimits.maximumTrackPoints,
            maximumPosts: library.store is any MultiInstanceStore ? 128 : 512),
        tokens: deviceTokens
    ).addRoutes(to: router)
    LiveController<RideRequestContext>(
        library: library, feed: liveFeed, pollSeconds: configuration.livePollSeconds,
        sessions: configuration.requiresAccounts ? sessions : nil
    ).addRoutes(to: router)
    LiveShareController<RideRequestContext>(library: library, map: shareMap).addRoutes(to: router)
    RideShareController<RideRequestContext>(library: library, tiles: tiles, publicURL: configuration.publicURL).addRoutes(to: router)
    PrivacyController<RideRequestContext>(library: library).addRoutes(to: router)
    FamilyController<RideRequestContext>(library: library, accountsRequired: configuration.requiresAccounts, limiter: limiter).addRoutes(to: router)
    ExportController<RideRequestContext>(library: library, gate: workGates.exports).addRoutes(to: router)
    if let tiles {
        TilesController<RideRequestContext>(tiles: tiles, metrics: metrics).addRoutes(to: router.group("tiles"))
    }
    // Unknown API addresses are JSON 404s, not the web app's files.
    router.on("api/**", method: .get) { _, _ -> Response in throw APIError.notFound("no such API endpoint") }
    return router
}
