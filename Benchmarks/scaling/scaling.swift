// Times the GPX reader on each XML construct at N, 2N and 4N occurrences (or bytes) and prints how the time
// grows: about 2 per doubling is linear, about 4 quadratic. Built by Benchmarks/run-scaling.sh in one module
// with Sources/RideKit (like the fuzz target), so it calls the reader as the library does.

import Foundation

let gpxOpen = "<gpx version=\"1.1\" creator=\"bench\" xmlns=\"http://www.topografix.com/GPX/1/1\">"

func inExtensions(_ body: String, declaring: String = "") -> String {
    "<gpx version=\"1.1\" creator=\"bench\" xmlns=\"http://www.topografix.com/GPX/1/1\"\(declaring)><extensions>\(body)</extensions></gpx>"
}

func inTrackName(_ text: String) -> String { gpxOpen + "<trk><name>\(text)</name></trk></gpx>" }

/// (name, N, the document with n of the construct)
let constructs: [(String, Int, @Sendable (Int) -> String)] = [
    ("track points", 50_000, { n in
        gpxOpen + "<trk><trkseg>"
            + (0..<n).map { "\n  <trkpt lat=\"1.\($0)\" lon=\"2\"><ele>\($0)</ele><time>2024-05-01T08:00:00Z</time></trkpt>" }.joined()
            + "</trkseg></trk></gpx>"
    }),
    ("elements with 250 attributes", 1_000, { n in
        let element = "<x " + (0..<250).map { "a\($0)=\"\"" }.joined(separator: " ") + "/>"
        return inExtensions(String(repeating: element, count: n))
    }),
    ("elements with 60 declarations", 1_000, { n in
        let element = "<x " + (0..<60).map { "xmlns:p\($0)=\"urn:\($0)\"" }.joined(separator: " ") + "><p0:y p59:a=\"\"/></x>"
        return inExtensions(String(repeating: element, count: n))
    }),
    ("bindings in scope (depth n, 200n lookups)", 250, { n in
        inExtensions(
            (0..<n).map { "<e xmlns:q\($0)=\"urn:q\($0)\">" }.joined()
                + String(repeating: "<p:x/><q0:x/>", count: 100 * n) + String(repeating: "</e>", count: n),
            declaring: " xmlns:p=\"urn:p\"")
    }),
    ("nesting depth (n levels, 1000 times)", 250, { n in
        inExtensions(String(repeating: String(repeating: "<a>", count: n) + String(repeating: "</a>", count: n), count: 1_000))
    }),
    ("a long element name (bytes)", 3 << 20, { n in inExtensions("<" + String(repeating: "n", count: n) + "/>") }),
    ("character references", 200_000, { n in inTrackName(String(repeating: "&#x41;&#66;", count: n)) }),
    ("entity references", 400_000, { n in inTrackName(String(repeating: "&amp;&lt;", count: n)) }),
    ("a long text (bytes)", 3 << 20, { n in inTrackName(String(repeating: "t", count: n)) }),
    ("white space (bytes)", 4 << 20, { n in gpxOpen + "<trk>" + String(repeating: " \n", count: n / 2) + "<name>x</name></trk></gpx>" }),
    ("comments", 1_000_000, { n in gpxOpen + "<trk>" + String(repeating: "<!-- c -->", count: n) + "</trk></gpx>" }),
    ("a long comment (bytes)", 3 << 20, { n in gpxOpen + "<!--" + String(repeating: "c", count: n) + "--></gpx>" }),
    ("CDATA sections", 100_000, { n in inExtensions("<x>" + String(repeating: "<![CDATA[a<]]>", count: n) + "</x>") }),
    ("a long CDATA section (bytes)", 3 << 20, { n in inExtensions("<x><![CDATA[" + String(repeating: "c", count: n) + "]]></x>") }),
    ("text split by comments", 100_000, { n in inExtensions("<x>" + String(repeating: "a<!-- -->", count: n) + "</x>") }),
    ("processing instructions", 1_000_000, { n in gpxOpen + String(repeating: "<?pi data?>", count: n) + "</gpx>" }),
    ("a long processing instruction (bytes)", 3 << 20, { n in gpxOpen + "<?pi " + String(repeating: "d", count: n) + "?></gpx>" }),
    ("a long attribute value (bytes)", 3 << 20, { n in inExtensions("<x a=\"" + String(repeating: "v", count: n) + "\"/>") }),
    ("attributes on one element (capped at 256)", 20_000, { n in
        inExtensions("<x " + (0..<n).map { "a\($0)=\"\"" }.joined(separator: " ") + "/>")
    }),
]

/// Best of `repeats` readings of `bytes`, in seconds, and whether the reader accepted them.
func time(_ bytes: [UInt8], repeats: Int) -> (Double, String) {
    var best = Double.infinity
    var outcome = ""
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            _ = try GPXReader.read(bytes: bytes)
            outcome = "read"
        } catch {
            outcome = "refused: \(error.message)"
        }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return (best, outcome)
}

@main
struct Scaling {
    static func main() {
        let repeats = Int(ProcessInfo.processInfo.environment["BENCH_REPEAT"] ?? "") ?? 3
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "stats" {
            // What `bikeride stats` does with a file, timed here so that two copies of the sources can be compared
            // on the same machine at the same time: `scaling stats FILE`.
            var best = Double.infinity
            for _ in 0..<repeats {
                let start = DispatchTime.now().uptimeNanoseconds
                var handler = GPXSummaryHandler(activity: .ride)
                do {
                    let report = try GPXReader.parse(contentsOf: URL(filePath: arguments[2]), into: &handler)
                    let summary = handler.summary(report: report)
                    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    print(String(format: "%.3f s, %d points", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, summary.points))
                } catch {
                    print("refused: \(error)")
                    return
                }
            }
            print(String(format: "best %.3f s", best))
            return
        }
        let only = ProcessInfo.processInfo.environment["SCALING_ONLY"]
        print("construct | N | bytes at 4N | time N | 2N | 4N | ×2N/N | ×4N/2N | outcome")
        print("---|---:|---:|---:|---:|---:|---:|---:|---")
        for (name, n, document) in constructs where only.map({ name.contains($0) }) ?? true {
            var times: [Double] = []
            var size = 0
            var outcome = ""
            for factor in [1, 2, 4] {
                let bytes = Array(document(n * factor).utf8)
                size = bytes.count
                let (seconds, result) = time(bytes, repeats: repeats)
                times.append(seconds)
                outcome = result
            }
            func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
            func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", b / a) }
            print("\(name) | \(n) | \(size) | \(ms(times[0])) | \(ms(times[1])) | \(ms(times[2])) | \(ratio(times[0], times[1])) | \(ratio(times[1], times[2])) | \(outcome.prefix(60))")
        }
    }
}
