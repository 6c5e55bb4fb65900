import Foundation
import RideKit

// The offline gazetteer (issue 24): how long the index takes to build, and how long a search takes, over queries of
// every length (one letter, where thousands of keys share the prefix, to whole names), with and without a region.
// Prints one JSON line per measurement.

func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18 }

let clock = ContinuousClock()
let started = clock.now
guard let gazetteer = Gazetteer.shared else { fatalError("the packed towns did not decode") }
let built = seconds(started.duration(to: clock.now))
print(#"{"what":"index","towns":\#(gazetteer.towns.count),"keys":\#(gazetteer.keyCount),"buildSeconds":\#(String(format: "%.3f", built))}"#)

let regions: [(String, Gazetteer.Region?)] = [
    ("none", nil),
    ("city", Gazetteer.Region(south: 46.45, west: 6.5, north: 46.6, east: 6.75)),
    ("country", Gazetteer.Region(south: 45.8, west: 5.9, north: 47.8, east: 10.5)),
    ("continent", Gazetteer.Region(south: 35, west: -10, north: 60, east: 30)),
    ("world", Gazetteer.Region(south: -90, west: -180, north: 90, east: 180)),
]
let queries = ["a", "s", "la", "sa", "ne", "lau", "san", "new", "saint", "lausanne", "zurich", "sao paulo", "paris, texas", "munchen",
               String(repeating: "x", count: 200)]
for (name, region) in regions {
    for length in [1, 2, 3, 5, 8] {
        let chosen = queries.filter { Gazetteer.fold($0).count >= length && Gazetteer.fold($0).count < (length == 8 ? 1000 : [1: 2, 2: 3, 3: 5, 5: 8][length]!) }
        guard !chosen.isEmpty else { continue }
        var times: [Double] = []
        for _ in 0..<50 {
            for query in chosen {
                let start = clock.now
                _ = gazetteer.search(query, region: region)
                times.append(seconds(start.duration(to: clock.now)) * 1e6)
            }
        }
        times.sort()
        let p50 = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)], maximum = times.last!
        print(#"{"what":"search","region":"\#(name)","queryLength":"\#(length == 8 ? "8+" : "\(length)")","searches":\#(times.count),"p50Micros":\#(Int(p50)),"p99Micros":\#(Int(p99)),"maxMicros":\#(Int(maximum))}"#)
    }
}
