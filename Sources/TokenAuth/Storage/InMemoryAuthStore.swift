#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A token store in memory: for apps that do not persist tokens, and for tests.
public final class InMemoryAuthStore: AuthStore {
    private let state: Mutex<(auth: Auth?, saves: Int)>

    /// Creates a store holding `auth`.
    public init(_ auth: Auth? = nil) {
        state = Mutex((auth, 0))
    }

    /// The stored bundle.
    public var current: Auth? { state.withLock { $0.auth } }

    /// How many times ``save(_:)`` or ``update(_:replacing:)`` wrote a bundle (marks of a refresh that starts,
    /// ``markRefreshStarted(_:at:)``, are not counted).
    public var saveCount: Int { state.withLock { $0.saves } }

    public func load() async throws -> Auth? { current }

    public func save(_ auth: Auth) async throws {
        state.withLock { $0 = (auth, $0.saves + 1) }
    }

    /// Replaces the bundle only if it is still `previous`, compared and written in one step.
    public func update(_ auth: Auth, replacing previous: Auth) async throws {
        try state.withLock { state in
            guard let stored = state.auth else { throw TokenAuthError.missing("the in-memory store") }
            guard stored.isSameVersion(as: previous) else { throw TokenAuthError.superseded("the in-memory store") }
            state = (auth, state.saves + 1)
        }
    }

    /// Marks the bundle as refreshing only if it is still `stored`, in one step; not counted in ``saveCount``.
    public func markRefreshStarted(_ stored: Auth, at date: Date) async throws {
        try state.withLock { state in
            guard let current = state.auth else { throw TokenAuthError.missing("the in-memory store") }
            guard current.isSameVersion(as: stored) else { throw TokenAuthError.superseded("the in-memory store") }
            state.auth?.refreshStartedAt = date
        }
    }

    public func erase() async throws {
        state.withLock { $0.auth = nil }
    }
}
