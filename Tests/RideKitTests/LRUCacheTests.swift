import Foundation
import Testing

@testable import RideKit

@Suite struct LRUCacheTests {
    @Test func emptyOneTwoMany() {
        var cache = LRUCache<String, Int>(capacity: 3)
        #expect(cache["a"] == nil && cache.count == 0)
        cache["a"] = 1
        #expect(cache["a"] == 1 && cache.count == 1)
        cache["b"] = 2
        #expect(cache["a"] == 1)  // a is now the most recent: b goes first
        cache["c"] = 3
        cache["d"] = 4
        #expect(cache.count == 3 && cache["b"] == nil && cache["a"] == 1 && cache["c"] == 3 && cache["d"] == 4)
        cache["a"] = nil
        #expect(cache.count == 2 && cache["a"] == nil)
        for value in 0..<10_000 { cache["k\(value)"] = value }
        #expect(cache.count == 3 && cache["k9999"] == 9999 && cache["k9997"] == 9997 && cache["k9996"] == nil)
    }
}
