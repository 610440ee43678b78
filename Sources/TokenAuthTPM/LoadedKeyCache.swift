import CTSS2

/// Which signing keys stay loaded in the TPM between signs, by public blob, least recently used first out.
///
/// Loading a key (TPM2_Load) costs about as much as signing with it, so the last few keys used stay loaded. A TPM
/// has few object slots (swtpm: 3, shared with the storage primary) and with no resource manager in between they are
/// the whole TPM's, so the bound is small; a load that still finds no free slot empties the cache and tries again.
struct LoadedKeyCache {
    /// How many keys stay loaded; 0 flushes each key right after its sign.
    let capacity: Int
    /// Most recently used last.
    private var entries: [(publicBlob: [UInt8], handle: ESYS_TR)] = []

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The loaded handle of the key with this public blob, marked as just used; nil if it is not loaded.
    mutating func handle(for publicBlob: [UInt8]) -> ESYS_TR? {
        guard let index = entries.firstIndex(where: { $0.publicBlob == publicBlob }) else { return nil }
        let entry = entries.remove(at: index)
        entries.append(entry)
        return entry.handle
    }

    /// Keeps a just-loaded key; returns the handles that no longer fit, for the caller to flush. With a capacity of
    /// 0 that is `handle` itself: the caller flushes it once it has signed.
    mutating func insert(_ handle: ESYS_TR, for publicBlob: [UInt8]) -> [ESYS_TR] {
        guard capacity > 0 else { return [handle] }
        entries.append((publicBlob, handle))
        let overflow = max(0, entries.count - capacity)
        defer { entries.removeFirst(overflow) }
        return entries.prefix(overflow).map(\.handle)
    }

    /// Forgets every key; returns their handles, for the caller to flush.
    mutating func removeAll() -> [ESYS_TR] {
        defer { entries.removeAll() }
        return entries.map(\.handle)
    }
}
