// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "bikeride",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikeride", targets: ["bikeride"]),
        .library(name: "RideKit", targets: ["RideKit"]),
        .library(name: "RideStore", targets: ["RideStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
    ],
    targets: [
        // The domain: pure Swift + Foundation. The GPX reader is a purpose-built tokenizer (see DESIGN 4.1),
        // so RideKit links nothing else.
        .target(name: "RideKit"),
        // libexpat, the reference the GPX tokenizer is checked against (tests and the fuzz target only).
        .systemLibrary(
            name: "CExpat",
            path: "Sources/CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"])]
        ),
        .executableTarget(
            name: "bikeride",
            dependencies: [
                "RideKit",
                "RideStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Persistence behind one interface (`RideStore`), its SQLite implementation on GRDB, import and export.
        .target(
            name: "RideStore",
            dependencies: [
                "RideKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SHA-256 of imported files (duplicate detection): BoringSSL's, with the CPU's SHA instructions.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A helper process for the store tests: imports a large file so that a test can kill it midway.
        .executableTarget(name: "ridestore-crash-helper", dependencies: ["RideStore"], path: "Tests/RideStoreCrashHelper"),
        // The store benchmark's measuring program (Benchmarks/run-store.sh; not part of the tests).
        .executableTarget(name: "ridestore-bench", dependencies: ["RideStore", "RideKit"], path: "Benchmarks/store"),
        .testTarget(name: "RideKitTests", dependencies: ["RideKit", "CExpat"]),
        .testTarget(name: "RideStoreTests", dependencies: ["RideStore", "RideKit"]),
        .testTarget(name: "bikerideTests", dependencies: ["RideKit"]),
    ]
)
