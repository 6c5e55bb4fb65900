// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "bikeride",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikeride", targets: ["bikeride"]),
        .library(name: "RideKit", targets: ["RideKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "RideKitTests", dependencies: ["RideKit", "CExpat"]),
        .testTarget(name: "bikerideTests", dependencies: ["RideKit"]),
    ]
)
