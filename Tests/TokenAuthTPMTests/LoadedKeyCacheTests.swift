import Testing

@testable import TokenAuthTPM

/// The loaded-key policy as a value: which handles to flush, without a TPM.
struct LoadedKeyCacheTests {
    @Test("keeps the most recently used keys up to its capacity and hands back the rest to flush")
    func leastRecentlyUsedGoesFirst() {
        var cache = LoadedKeyCache(capacity: 2)
        #expect(cache.insert(0x100, for: [1]).isEmpty)
        #expect(cache.insert(0x101, for: [2]).isEmpty)
        #expect(cache.handle(for: [1]) == 0x100)
        #expect(cache.insert(0x102, for: [3]) == [0x101])
        #expect(cache.handle(for: [2]) == nil)
        #expect(Set(cache.removeAll()) == [0x100, 0x102])
        #expect(cache.isEmpty)
    }

    @Test("with capacity 0 a key is flushed after its sign")
    func capacityZeroKeepsNothing() {
        var cache = LoadedKeyCache(capacity: 0)
        #expect(cache.insert(0x100, for: [1]) == [0x100])
        #expect(cache.handle(for: [1]) == nil)
        #expect(LoadedKeyCache(capacity: -3).capacity == 0)
    }
}
