// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "bikeride",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikeride", targets: ["bikeride"]),
        .library(name: "RideKit", targets: ["RideKit"]),
        .library(name: "RideStore", targets: ["RideStore"]),
        .library(name: "RideStorePostgres", targets: ["RideStorePostgres"]),
        .library(name: "RideServer", targets: ["RideServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        // Already in the graph through Hummingbird; named for the TLS configuration types.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        // Already in the graph (and built) through HummingbirdTesting: the geocoder's HTTP client (timeouts, capped
        // bodies, TLS on swift-nio-ssl) rather than a hand-made one on NIO or FoundationNetworking's libcurl.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.30.0"),
        // The PostgreSQL store (`--database postgres://…`): the wire protocol and a connection pool, on SwiftNIO,
        // which Hummingbird already brings; nothing else (no ORM, no SQL builder).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // Already in the graph through Hummingbird; named for the live feed, which ends its streams on shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        // Zip archives (a Strava bulk export): entries read as streams, so that caps hold while they inflate.
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
    ],
    targets: [
        // The domain: pure Swift + Foundation. The GPX reader is a purpose-built tokenizer (see DESIGN 4.1),
        // so RideKit links nothing else but zlib, for gzip-compressed GPX (`.gpx.gz`, as Strava exports them).
        // zlib as the system has it, named apart from ZIPFoundation's own CZlib module (two modules of one name clash).
        .target(name: "RideKit", dependencies: ["SystemZlib"]),
        .systemLibrary(
            name: "SystemZlib",
            path: "Sources/SystemZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libexpat, the reference the GPX tokenizer is checked against (tests and the fuzz target only).
        .systemLibrary(
            name: "CExpat",
            path: "Sources/CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"])]
        ),
        // The HTTP server: JSON API, the web app's files, map tiles. Hummingbird 2; TLS through HummingbirdTLS
        // (swift-nio-ssl, which HummingbirdTesting builds anyway).
        .target(
            name: "RideServer",
            dependencies: [
                "RideKit",
                "RideStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "bikeride",
            dependencies: [
                "RideKit",
                "RideStore",
                "RideStorePostgres",
                "RideServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Persistence behind one interface (`RideStore`), its SQLite implementation on GRDB, import and export; and
        // the MBTiles reader (`--tiles`), also on GRDB. GRDB links the system's SQLite (libsqlite3-dev on Linux).
        .target(
            name: "RideStore",
            dependencies: [
                "RideKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, which GRDB itself links: the ingestion path's statements (`DirectStatement`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // SHA-256 of imported files (duplicate detection): BoringSSL's, with the CPU's SHA instructions.
                .product(name: "Crypto", package: "swift-crypto"),
                // scrypt for passwords (BoringSSL's), from the swift-crypto package already used: no new package.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The store on PostgreSQL (`--database postgres://…`), a peer of the SQLite store: the same interface and the
        // same rules (RideStore's `Core/`), its own SQL. A module of its own, so that what needs only SQLite does not
        // link postgres-nio.
        .target(
            name: "RideStorePostgres",
            dependencies: [
                "RideKit",
                "RideStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // A helper process for the store tests: imports a large file so that a test can kill it midway.
        .executableTarget(name: "ridestore-crash-helper", dependencies: ["RideStore"], path: "Tests/RideStoreCrashHelper"),
        // The store benchmark's measuring program (Benchmarks/run-store.sh; not part of the tests).
        .executableTarget(name: "ridestore-bench", dependencies: ["RideStore", "RideStorePostgres", "RideKit"], path: "Benchmarks/store"),
        // The heatmap benchmark (Benchmarks/run-heatmap.sh; not part of the tests).
        .executableTarget(name: "heatmap-bench", dependencies: ["RideStore", "RideStorePostgres", "RideKit"], path: "Benchmarks/heatmap"),
        // The gazetteer's index build and query times (Benchmarks/run-gazetteer.sh; not part of the tests).
        .executableTarget(name: "gazetteer-bench", dependencies: ["RideKit"], path: "Benchmarks/gazetteer"),
        // What the test targets share: the shared fixtures' paths, JPEGs laid out byte by byte, gzip.
        // zlib: the PNG reader that checks the heatmap tiles (a decoder of its own, apart from the encoder).
        .target(name: "TestSupport", dependencies: ["SystemZlib"], path: "Tests/TestSupport"),
        .testTarget(name: "RideKitTests", dependencies: ["RideKit", "CExpat", "TestSupport"]),
        .testTarget(
            name: "RideStoreTests",
            dependencies: [
                "RideStore", "RideStorePostgres", "RideKit", "TestSupport",
                // The SQLite cases read the database through GRDB.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Writes the archives the archive import is tested on.
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // The PostgreSQL cases make and drop a database of their own for each test.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "RideServerTests",
            dependencies: [
                "RideServer",
                "RideStore",
                "RideStorePostgres",
                "TestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // Writes the MBTiles files the tile tests serve.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // The recording path on a PostgreSQL store: a database of its own per test.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(name: "bikerideTests", dependencies: ["RideKit", "TestSupport"]),
    ]
)
