import Foundation
import JWTKit
import TokenAuth

/// The issuer's keys as last fetched, shared by every copy of one ``IDTokenVerifier``: one fetch at a time, and
/// at most one more per ``IDTokenVerifier/minimumRefetchInterval`` for a key it does not know.
actor JWKSCache {
    /// One fetched key set, ready to verify with.
    struct Keys: Sendable {
        /// jwt-kit's verifier of each usable key, by `kid`: one key each, so that a token without a `kid` is
        /// checked only with the keys that can make its `alg` (jwt-kit would try every key of a shared collection).
        let verifiers: [String: JWTKeyCollection]
        /// Each usable key by `kid` (keys without one get `#0`, `#1` … by position).
        let keys: [String: JWK]
        /// When the set was fetched, by the verifier's wall clock.
        let fetchedAt: Date
    }

    private var current: Keys?
    private var fetching: Task<Keys, any Error>?
    /// How many fetches finished: a verification that saw it grow got a key set fetched for its own token.
    private(set) var completedFetches = 0

    /// The cached keys, fetched first when there are none or they are older than `maximumAge`.
    func keys(now: Date, maximumAge: Duration, fetch: @escaping @Sendable () async throws -> Keys) async throws -> Keys {
        if let current, now.timeIntervalSince(current.fetchedAt) < maximumAge.timeInterval,
            now >= current.fetchedAt
        {
            return current
        }
        return try await refetch(fetch)
    }

    /// The keys after fetching again because a token names `kid`, which `keys` lacks — unless the set was fetched
    /// less than `interval` ago (then `nil`: a token with made-up key ids cannot make us fetch in a loop).
    func keys(
        after keys: Keys, lacking kid: String, now: Date, interval: Duration,
        fetch: @escaping @Sendable () async throws -> Keys
    ) async throws -> Keys? {
        if let current, current.fetchedAt > keys.fetchedAt, current.keys[kid] != nil { return current }
        let newest = current ?? keys
        let age = now.timeIntervalSince(newest.fetchedAt)
        guard age >= interval.timeInterval || age < 0 else { return nil }
        return try await refetch(fetch)
    }

    /// Joins the fetch under way, or starts one.
    private func refetch(_ fetch: @escaping @Sendable () async throws -> Keys) async throws -> Keys {
        if let fetching { return try await fetching.value }
        let task = Task { try await fetch() }
        fetching = task
        defer { fetching = nil }
        let keys = try await task.value
        current = keys
        completedFetches += 1
        return keys
    }
}
