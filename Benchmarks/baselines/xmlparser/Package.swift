// swift-tools-version: 6.0
// A standalone baseline for Benchmarks/run-gpx.sh, deliberately NOT part of the bikeride package:
// it reads a GPX with Foundation's XMLParser(contentsOf:) and does the same work as `bikeride stats`
// (2D length over all trkpt, uphill/downhill from ele). Build it from this folder:
//   swift build -c release --scratch-path .build
import PackageDescription

let package = Package(
    name: "xmlparser-baseline",
    targets: [
        .executableTarget(name: "xmlparser-stats"),
    ]
)
