/// A cache that keeps at most `capacity` entries and forgets the least recently used first.
///
///     var cache = LRUCache<String, Int>(capacity: 2)
///     cache["a"] = 1; cache["b"] = 2; _ = cache["a"]; cache["c"] = 3
///     cache["b"]  // nil: "b" was the least recently used
///
/// Reads and writes are O(1): a dictionary of slots in a doubly linked list kept in arrays.
public struct LRUCache<Key: Hashable, Value> {
    public let capacity: Int
    private var slots: [Key: Int] = [:]
    private var keys: [Key?] = []
    private var values: [Value?] = []
    private var previous: [Int] = []
    private var next: [Int] = []
    /// Most recently used; -1 when empty.
    private var head = -1
    /// Least recently used; -1 when empty.
    private var tail = -1

    public init(capacity: Int) {
        precondition(capacity > 0, "an LRU cache holds at least one entry")
        self.capacity = capacity
    }

    public var count: Int { slots.count }

    /// The value for `key` (and it becomes the most recently used); setting nil removes it.
    public subscript(key: Key) -> Value? {
        mutating get {
            guard let slot = slots[key] else { return nil }
            moveToFront(slot)
            return values[slot]
        }
        set {
            if let slot = slots[key] {
                if let newValue {
                    values[slot] = newValue
                    moveToFront(slot)
                } else {
                    unlink(slot)
                    slots[key] = nil
                    keys[slot] = nil
                    values[slot] = nil
                    free.append(slot)
                }
                return
            }
            guard let newValue else { return }
            let slot: Int
            if slots.count == capacity {
                slot = tail
                unlink(slot)
                slots[keys[slot]!] = nil
            } else if let reused = free.popLast() {
                slot = reused
            } else {
                slot = keys.count
                keys.append(nil)
                values.append(nil)
                previous.append(-1)
                next.append(-1)
            }
            keys[slot] = key
            values[slot] = newValue
            slots[key] = slot
            pushFront(slot)
        }
    }

    private var free: [Int] = []

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        pushFront(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let before = previous[slot], after = next[slot]
        if before >= 0 { next[before] = after } else { head = after }
        if after >= 0 { previous[after] = before } else { tail = before }
        previous[slot] = -1
        next[slot] = -1
    }

    private mutating func pushFront(_ slot: Int) {
        previous[slot] = -1
        next[slot] = head
        if head >= 0 { previous[head] = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
