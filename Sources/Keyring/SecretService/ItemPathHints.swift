import Synchronization

/// Where this process last found the item with exactly some attributes on the Secret Service: the *hints* with which a
/// lookup or a store asks for that item's properties (and secret) in its search's batch, saving a round trip (see
/// `SecretServiceCalls+Search.swift`).
///
/// A hint is only where to look, never an answer: the answers used are read in the same round as the search, and used
/// only when the search found that item alone. So a hint can be wrong without harm (the item was replaced, deleted,
/// or another joined it): it then costs the calls asked for in vain. No signals are watched to keep hints right.
///
/// One per process (``ofThisProcess``), as libsecret's connection to the service is, whatever `Keyring` value a call
/// goes through; bounded by ``capacity``.
final class ItemPathHints: Sendable {
    /// This process's.
    static let ofThisProcess = ItemPathHints()

    /// At most this many sets of attributes are remembered; one more, and the process starts over.
    static let capacity = 64

    private let paths = Mutex<[String: String]>([:])

    /// The path where the item with exactly `attributes` was last found, if it was.
    func path(for attributes: [String: String]) -> String? {
        let key = Keyring.lockKey(attributes)
        return paths.withLock { $0[key] }
    }

    /// Remembers that the item with exactly `attributes` is at `path`; forgets where it was, with `nil`.
    func remember(_ path: String?, for attributes: [String: String]) {
        let key = Keyring.lockKey(attributes)
        paths.withLock { paths in
            if path != nil, paths[key] == nil, paths.count >= Self.capacity { paths.removeAll() }
            paths[key] = path
        }
    }
}
