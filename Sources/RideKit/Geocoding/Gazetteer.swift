import Foundation

/// The towns of the world, offline: GeoNames' `cities15000` (every place of at least 15,000 people, 34,006 towns;
/// CC BY 4.0, https://www.geonames.org), packed into the binary by `scripts/make_gazetteer.py` (≈ 1.2 MB). Address
/// search uses it when no geocoder is configured, and beside one (issue 24).
///
///     Gazetteer.shared?.search("zurich").first?.town.name   // "Zürich"
///
/// **Matching.** Names are compared folded (`fold`): lower case, accents dropped ("São Paulo" → "sao paulo",
/// "Zürich" → "zurich", "Straße" → "strasse"), every run of punctuation or spaces one space ("Saint-Étienne" →
/// "saint etienne"). A query matches a town whose name, one of its other names (towns of ≥ 100,000 people: "Munich"
/// is also "München"), or a later word of its name ("paulo" for São Paulo) starts with the folded query. After a comma
/// the query names the country or US state ("Paris, Texas").
///
/// **Ranking.** Towns inside the visible region (`region`) first, then by how well they match (the whole name, the
/// whole of another name, the start of the name, of another name, of a later word), then towns before districts (a
/// part of a larger town of the name it extends: "Paris 15 Vaugirard"), then by population.
///
/// **Work per query is bounded.** Every key sits in one sorted array, so a prefix is a binary search; the keys of a
/// prefix are examined one by one only when there are at most `maximumScan` of them; past that (a query of one or
/// two letters) the `candidateCount` most populous are taken from a segment tree of populations (a heap over its
/// nodes, ranked as the results are), plus the exact matches and, with a region, the matching towns of at most `maximumRegionTowns` towns in
/// the region's 1° cells (at most `maximumRegionCells` of them). Queries are cut to `maximumQueryBytes`.
public final class Gazetteer: Sendable {
    /// One town.
    public struct Town: Sendable, Hashable {
        public var name: String
        /// The other names GeoNames knows in Latin letters (towns of at least 100,000 people).
        public var alternates: [String]
        /// The country's English name ("Switzerland").
        public var country: String
        /// The US state for a US town ("Texas"), else nil.
        public var state: String?
        public var latitude: Double
        public var longitude: Double
        public var population: Int
        /// A part of a larger town whose name it extends, close to it ("Paris 15 Vaugirard"): listed after towns.
        public var isDistrict: Bool = false

        /// "Paris, Texas, United States", "Lausanne, Switzerland".
        public var address: String { ([name] + [state, country].compactMap { $0 }).joined(separator: ", ") }
    }

    /// A town found, and why.
    public struct Match: Sendable, Hashable {
        public var town: Town
        /// The name that matched: the town's own, or another ("München" when "munchen" found Munich).
        public var matchedName: String
        /// 0 the whole name, 1 the whole of another name, 2 the start of the name, 3 of another name, 4 of a later word.
        public var quality: Int
        /// Inside the region the search was given.
        public var inRegion: Bool
    }

    /// Where the map is: a latitude/longitude box; `west > east` crosses the antimeridian.
    public struct Region: Sendable, Hashable {
        public var south: Double
        public var west: Double
        public var north: Double
        public var east: Double

        public init(south: Double, west: Double, north: Double, east: Double) {
            self.south = south
            self.west = west
            self.north = north
            self.east = east
        }

        public func contains(latitude: Double, longitude: Double) -> Bool {
            guard latitude >= south, latitude <= north else { return false }
            return west <= east ? (longitude >= west && longitude <= east) : (longitude >= west || longitude <= east)
        }
    }

    public static let maximumQueryBytes = 100
    public static let maximumScan = 4096
    public static let candidateCount = 200
    public static let maximumRegionCells = 2048
    public static let maximumRegionTowns = 20_000

    /// The towns shipped with bikeride, decoded and indexed once (nil only if the packed data were damaged).
    public static let shared: Gazetteer? = {
        guard let bytes = ShippedData.unpack(packedTowns, maximumBytes: 16 << 20) else { return nil }
        return Gazetteer(text: String(decoding: bytes, as: UTF8.self))
    }()

    /// `shared`, decoded on a thread of its own: the first call takes about a second (several in a debug build), which
    /// must not hold one of the few threads Swift's tasks run on.
    public static func loaded() async -> Gazetteer? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(returning: shared) }
        }
    }

    public let towns: [Town]
    /// How many keys the index holds (names, other names, later words).
    public var keyCount: Int { keyTown.count }
    /// Every folded key's bytes, one after another, in sorted order of the keys.
    private let keyBytes: [UInt8]
    /// Where key i starts in `keyBytes` (one more entry than keys).
    private let keyStarts: [Int32]
    private let keyTown: [Int32]
    /// 0 the town's name, 1 another name, 2 a later word of the name.
    private let keyKind: [UInt8]
    /// A segment tree over the keys (leaves from `leafBase`): each node the key of its most populous town, or -1.
    private let tree: [Int32]
    private let leafBase: Int
    /// Towns per 1° cell (`cell(latitude:longitude:)`), most populous first.
    private let cells: [Int32: [Int32]]

    /// The towns of the text `scripts/make_gazetteer.py` writes (one a line: name, alternates joined by `|`,
    /// country, state, latitude, longitude, population, 1 for a district, tab-separated); malformed lines are skipped.
    public init(text: String) {
        var towns: [Town] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 8, let latitude = Double(fields[4]), let longitude = Double(fields[5]),
                  let population = Int(fields[6]), !fields[0].isEmpty
            else { continue }
            towns.append(Town(
                name: String(fields[0]), alternates: fields[1].split(separator: "|").map(String.init), country: String(fields[2]),
                state: fields[3].isEmpty ? nil : String(fields[3]), latitude: latitude, longitude: longitude, population: population,
                isDistrict: fields[7] == "1"))
        }
        self.towns = towns

        var keys: [(bytes: [UInt8], town: Int32, kind: UInt8)] = []
        keys.reserveCapacity(towns.count * 3)
        var cells: [Int32: [Int32]] = [:]
        for (index, town) in towns.enumerated() {
            let name = Self.fold(town.name)
            guard !name.isEmpty else { continue }
            keys.append((name, Int32(index), 0))
            var start = 0
            for (offset, byte) in name.enumerated() where byte == 0x20 && offset + 1 < name.count {
                start = offset + 1
                keys.append((Array(name[start...]), Int32(index), 2))
            }
            var seen: Set<[UInt8]> = [name]
            for alternate in town.alternates {
                let key = Self.fold(alternate)
                if !key.isEmpty, seen.insert(key).inserted { keys.append((key, Int32(index), 1)) }
            }
            cells[Self.cell(latitude: town.latitude, longitude: town.longitude), default: []].append(Int32(index))
        }
        for key in cells.keys { cells[key]!.sort { towns[Int($0)].population > towns[Int($1)].population } }
        self.cells = cells
        keys.sort { Self.compare($0.bytes[...], $1.bytes[...]) < 0 }

        var bytes: [UInt8] = []
        var starts: [Int32] = [0]
        for key in keys {
            bytes.append(contentsOf: key.bytes)
            starts.append(Int32(bytes.count))
        }
        keyBytes = bytes
        keyStarts = starts
        keyTown = keys.map(\.town)
        keyKind = keys.map(\.kind)

        var base = 1
        while base < keys.count { base <<= 1 }
        var tree = [Int32](repeating: -1, count: 2 * base)
        for index in keys.indices { tree[base + index] = Int32(index) }
        // The ranking's order among keys that are not the whole query: a town's name before its other names before a
        // later word of its name, then population.
        func rank(_ key: Int32) -> Int { key < 0 ? -1 : Self.rank(kind: keys[Int(key)].kind, population: towns[Int(keys[Int(key)].town)].population) }
        for node in stride(from: base - 1, through: 1, by: -1) {
            let left = tree[2 * node], right = tree[2 * node + 1]
            tree[node] = rank(left) >= rank(right) ? left : right
        }
        self.tree = tree
        leafBase = base
    }

    /// Towns matching `query`, best first (at most `limit`); none for a query with nothing to match.
    public func search(_ query: String, region: Region? = nil, limit: Int = 10) -> [Match] {
        var text = Substring(query.utf8.count > Self.maximumQueryBytes ? String(decoding: query.utf8.prefix(Self.maximumQueryBytes), as: UTF8.self) : query)
        var within: [UInt8]?
        if let comma = text.firstIndex(of: ",") {
            within = Self.fold(text[text.index(after: comma)...])
            text = text[..<comma]
        }
        let folded = Self.fold(text)
        guard !folded.isEmpty, limit > 0 else { return [] }
        let needle = folded[...]
        let lower = lowerBound(needle)
        let upper = upperBound(needle, from: lower)
        var candidates: Set<Int32> = []
        if upper - lower <= Self.maximumScan {
            candidates.formUnion((lower..<upper).map { Int32($0) })
        } else {
            var key = lower
            while key < upper, key - lower < Self.maximumScan, compare(key, needle) == 0 {
                candidates.insert(Int32(key))
                key += 1
            }
            candidates.formUnion(mostPopulous(lower, upper, count: Self.candidateCount))
            if let region { candidates.formUnion(regionKeys(region, needle)) }
        }
        // The best key of each town; the matched name is looked up only for the towns returned.
        var best: [Int32: (key: Int32, quality: Int, inRegion: Bool)] = [:]
        for key in candidates {
            let townIndex = keyTown[Int(key)]
            let town = towns[Int(townIndex)]
            if let within, !within.isEmpty,
               !([town.country] + [town.state].compactMap { $0 }).contains(where: { Self.fold($0).starts(with: within) }) {
                continue
            }
            let kind = Int(keyKind[Int(key)])
            let exact = keyStarts[Int(key) + 1] - keyStarts[Int(key)] == Int32(needle.count)
            let quality = kind == 2 ? 4 : (exact ? 0 : 2) + kind
            if let existing = best[townIndex], existing.quality <= quality { continue }
            best[townIndex] = (key, quality, region?.contains(latitude: town.latitude, longitude: town.longitude) ?? false)
        }
        let ranked = best.sorted { a, b in
            if a.value.inRegion != b.value.inRegion { return a.value.inRegion }
            if a.value.quality != b.value.quality { return a.value.quality < b.value.quality }
            let first = towns[Int(a.key)], second = towns[Int(b.key)]
            if first.isDistrict != second.isDistrict { return second.isDistrict }
            if first.population != second.population { return first.population > second.population }
            return first.name != second.name ? first.name < second.name : a.key < b.key
        }
        return ranked.prefix(limit).map { townIndex, entry in
            let town = towns[Int(townIndex)]
            var matched = town.name
            if keyKind[Int(entry.key)] == 1 {
                let bytes = Array(keyBytes[Int(keyStarts[Int(entry.key)])..<Int(keyStarts[Int(entry.key) + 1])])
                matched = town.alternates.first { Self.fold($0) == bytes } ?? town.name
            }
            return Match(town: town, matchedName: matched, quality: entry.quality, inRegion: entry.inRegion)
        }
    }

    // MARK: Folding

    private static let special: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ħ": "h",
    ]

    /// The key a name is compared by: lower case, accents dropped (compatibility decomposition, marks removed),
    /// ß æ œ ø ł đ ð þ ı ħ spelt out in ASCII, every run of other characters than letters and digits one space,
    /// none at either end. "Saint-Étienne" → "saint etienne".
    public static func fold<S: StringProtocol>(_ text: S) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        func append(_ scalar: Unicode.Scalar) {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return
            default: break
            }
            guard properties.isAlphabetic || properties.numericType != nil else {
                pendingSpace = !out.isEmpty
                return
            }
            if pendingSpace { out.append(0x20); pendingSpace = false }
            let lower = properties.lowercaseMapping
            for scalar in lower.unicodeScalars {
                if let spelt = special[scalar] { out.append(contentsOf: spelt.utf8) } else { out.append(contentsOf: String(scalar).utf8) }
            }
        }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if pendingSpace { out.append(0x20); pendingSpace = false }
                    out.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    if pendingSpace { out.append(0x20); pendingSpace = false }
                    out.append(byte + 32)
                default:
                    pendingSpace = !out.isEmpty
                }
            }
        } else {
            for scalar in String(text).decomposedStringWithCompatibilityMapping.unicodeScalars { append(scalar) }
        }
        return out
    }

    // MARK: The index

    static func cell(latitude: Double, longitude: Double) -> Int32 {
        let row = Int32(max(0, min(179, (latitude + 90).rounded(.down))))
        let column = Int32(max(0, min(359, (longitude + 180).rounded(.down))))
        return row * 360 + column
    }

    static func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        let common = min(a.count, b.count)
        guard common > 0 else { return a.count - b.count }
        let result = a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in memcmp(pa.baseAddress!, pb.baseAddress!, common) } }
        if result != 0 { return Int(result) }
        return a.count - b.count
    }

    /// Key `index` compared with `needle`, over at most the needle's length (0: the key starts with it).
    private func compare(_ index: Int, _ needle: ArraySlice<UInt8>, prefixOnly: Bool = false) -> Int {
        let start = Int(keyStarts[index]), end = Int(keyStarts[index + 1])
        let key = keyBytes[start..<(prefixOnly ? min(end, start + needle.count) : end)]
        return Self.compare(key, needle)
    }

    /// The first key not before `needle`.
    private func lowerBound(_ needle: ArraySlice<UInt8>) -> Int {
        var low = 0, high = keyTown.count
        while low < high {
            let middle = (low + high) / 2
            if compare(middle, needle) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first key from `from` on that does not start with `needle`.
    private func upperBound(_ needle: ArraySlice<UInt8>, from: Int) -> Int {
        var low = from, high = keyTown.count
        while low < high {
            let middle = (low + high) / 2
            if compare(middle, needle, prefixOnly: true) <= 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func rank(kind: UInt8, population: Int) -> Int { (2 - Int(kind)) << 40 | min(population, 1 << 40 - 1) }

    /// The keys of the best `count` towns among keys `lower..<upper` by `rank` (a heap over the segment tree's nodes).
    private func mostPopulous(_ lower: Int, _ upper: Int, count: Int) -> [Int32] {
        func population(_ node: Int) -> Int {
            tree[node] < 0 ? -1 : Self.rank(kind: keyKind[Int(tree[node])], population: towns[Int(keyTown[Int(tree[node])])].population)
        }
        var heap: [(population: Int, node: Int)] = []
        func push(_ node: Int) {
            heap.append((population(node), node))
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[parent].population < heap[child].population else { break }
                heap.swapAt(parent, child)
                child = parent
            }
        }
        func pop() -> Int {
            let top = heap[0].node
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < heap.count, heap[left].population > heap[largest].population { largest = left }
                if right < heap.count, heap[right].population > heap[largest].population { largest = right }
                if largest == parent { break }
                heap.swapAt(parent, largest)
                parent = largest
            }
            return top
        }
        var low = lower + leafBase, high = upper + leafBase
        while low < high {
            if low & 1 == 1 { push(low); low += 1 }
            if high & 1 == 1 { high -= 1; push(high) }
            low >>= 1
            high >>= 1
        }
        var found: [Int32] = []
        var seen: Set<Int32> = []
        while seen.count < count, !heap.isEmpty {
            let node = pop()
            guard tree[node] >= 0 else { continue }
            if node >= leafBase {
                found.append(tree[node])
                seen.insert(keyTown[Int(tree[node])])
            } else {
                push(2 * node)
                push(2 * node + 1)
            }
        }
        return found
    }

    /// Keys of the towns in `region` whose name (or a later word of it, or another name) starts with `needle`.
    private func regionKeys(_ region: Region, _ needle: ArraySlice<UInt8>) -> [Int32] {
        let south = Int(max(-90, min(89.999, region.south)) + 90), north = Int(max(-90, min(89.999, region.north)) + 90)
        guard south <= north else { return [] }
        var columns: [Int] = []
        let west = Int(max(-180, min(179.999, region.west)) + 180), east = Int(max(-180, min(179.999, region.east)) + 180)
        columns = west <= east ? Array(west...east) : Array(west...359) + Array(0...east)
        guard (north - south + 1) * columns.count <= Self.maximumRegionCells else { return [] }
        var wanted: Set<Int32> = []
        var examined = 0
        for row in south...north {
            for column in columns {
                for town in cells[Int32(row * 360 + column)] ?? [] {
                    examined += 1
                    if examined > Self.maximumRegionTowns { break }
                    wanted.insert(town)
                }
            }
        }
        // The needle's keys whose town is in the region: the prefix range holds them all, but is large; walk the towns
        // instead, each checked against its own keys (its name, each later word onwards, its other names).
        var keys: [Int32] = []
        for town in wanted {
            let value = towns[Int(town)]
            let name = Self.fold(value.name)
            var own: [(bytes: [UInt8], kind: UInt8)] = [(name, 0)]
            for (offset, byte) in name.enumerated() where byte == 0x20 && offset + 1 < name.count { own.append((Array(name[(offset + 1)...]), 2)) }
            for alternate in value.alternates { own.append((Self.fold(alternate), 1)) }
            for (bytes, kind) in own where bytes.starts(with: needle) {
                if let key = keyIndex(bytes, town: town, kind: kind) { keys.append(key) }
            }
        }
        return keys
    }

    /// The index of the key `bytes` of `town` (several towns share a name: at most 10,000 equal keys are looked at).
    private func keyIndex(_ bytes: [UInt8], town: Int32, kind: UInt8) -> Int32? {
        var key = lowerBound(bytes[...])
        let first = key
        while key < keyTown.count, key - first < 10_000, compare(key, bytes[...]) == 0 {
            if keyTown[key] == town && keyKind[key] == kind { return Int32(key) }
            key += 1
        }
        return nil
    }
}
