import Foundation

extension XMLScanner {
    /// Resolves the prefixes of the current start tag's attributes (after its namespace declarations) and checks
    /// that no attribute appears twice, by raw name or by expanded name (namespace and local name).
    ///
    /// Linear in the attributes: a tag with many is checked through `attributeNames`, not pairwise (60,000
    /// attributes took 11 s pairwise). `maxAttributes` bounds even the worst case of the table, all names hashing
    /// alike, to a fixed amount of work per tag.
    mutating func resolveAttributesCheckingUniqueness() throws(GPXError) {
        if attributeCount <= 8 {
            // A point's lat and lon: comparing them costs less than hashing.
            for index in 0..<attributeCount {
                let attribute = try resolveAttribute(at: index)
                for other in 0..<index {
                    workSteps += 1
                    let earlier = attributes[other]
                    let sameRaw =
                        earlier.qnameLength == attribute.qnameLength
                        && sameBytes(base + earlier.qnameStart, base + attribute.qnameStart, attribute.qnameLength)
                    let sameExpanded =
                        earlier.namespace == attribute.namespace && attribute.namespace != XMLScanner.xmlnsNamespace
                        && earlier.localLength == attribute.localLength
                        && sameBytes(base + earlier.localStart, base + attribute.localStart, attribute.localLength)
                    if sameRaw || sameExpanded {
                        throw malformed("duplicate attribute", at: attribute.qnameStart)
                    }
                }
            }
            return
        }
        // Keyed by namespace and local name, a declaration by its own namespace (xmlns) and the prefix it declares
        // ("xmlns" for the default namespace). Equal keys are exactly the pairs the comparison above refuses: an
        // ordinary attribute never has the xmlns namespace (`resolve` refuses the prefix and `openElement` the
        // URI), and `xmlns:xmlns` is refused before this.
        let table = attributeNames
        table.startTag()
        for index in 0..<attributeCount {
            let attribute = try resolveAttribute(at: index)
            var slot = Int(AttributeNameTable.hash(namespace: attribute.namespace, base + attribute.localStart, attribute.localLength))
            while table.stamps[slot] == table.stamp {
                workSteps += 1
                let earlier = attributes[Int(table.indices[slot])]
                if earlier.namespace == attribute.namespace && earlier.localLength == attribute.localLength
                    && sameBytes(base + earlier.localStart, base + attribute.localStart, attribute.localLength)
                {
                    throw malformed("duplicate attribute", at: attribute.qnameStart)
                }
                slot = (slot + 1) & (AttributeNameTable.slotCount - 1)
            }
            workSteps += 1
            table.stamps[slot] = table.stamp
            table.indices[slot] = Int32(index)
        }
    }

    /// The attribute at `index` with its namespace resolved (declarations stay marked with xmlns's; the GPX layer
    /// ignores them).
    private mutating func resolveAttribute(at index: Int) throws(GPXError) -> XMLAttributeToken {
        var attribute = attributes[index]
        if attribute.namespace != XMLScanner.xmlnsNamespace && attribute.prefixLength > 0 {
            attribute.namespace = try resolve(prefixStart: attribute.qnameStart, prefixLength: attribute.prefixLength)
            attributes[index] = attribute
        }
        return attribute
    }
}

/// Attribute tokens of the current tag, reused from tag to tag.
final class AttributeStorage {
    private(set) var pointer = UnsafeMutablePointer<XMLAttributeToken>.allocate(capacity: 32)
    private var capacity = 32

    @inline(__always)
    func set(_ token: XMLAttributeToken, at index: Int) {
        if index >= capacity {
            let bigger = UnsafeMutablePointer<XMLAttributeToken>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: pointer, count: capacity)
            pointer.deallocate()
            pointer = bigger
            capacity *= 2
        }
        (pointer + index).initialize(to: token)
    }

    deinit { pointer.deallocate() }
}

/// An open-addressing hash table of the current tag's attribute names, for the duplicate check. Each slot is
/// stamped with the tag it was filled for, so that a new tag starts with an empty table without clearing it.
final class AttributeNameTable {
    /// Twice `XMLScanner.maxAttributes`, a power of two: the table is never more than half full.
    static let slotCount = 512
    let stamps = UnsafeMutablePointer<UInt32>.allocate(capacity: slotCount)
    let indices = UnsafeMutablePointer<Int32>.allocate(capacity: slotCount)
    private(set) var stamp: UInt32 = 0

    init() {
        stamps.initialize(repeating: 0, count: Self.slotCount)
        indices.initialize(repeating: 0, count: Self.slotCount)
    }

    /// Empties the table for the next tag.
    func startTag() {
        stamp &+= 1
        if stamp == 0 {
            // After 2³² tags the stamps come round again: clear them once.
            stamps.update(repeating: 0, count: Self.slotCount)
            stamp = 1
        }
    }

    /// FNV-1a over the local name, mixed with the namespace id, reduced to a slot.
    static func hash(namespace: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> UInt32 {
        var hash: UInt32 = 2_166_136_261 ^ UInt32(bitPattern: namespace)
        for index in 0..<count {
            hash = (hash ^ UInt32(bytes[index])) &* 16_777_619
        }
        return (hash ^ (hash >> 16)) & UInt32(slotCount - 1)
    }

    deinit {
        stamps.deallocate()
        indices.deallocate()
    }
}
