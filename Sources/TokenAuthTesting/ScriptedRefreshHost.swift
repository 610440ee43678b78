#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import TokenAuth

/// A ``RefreshHost`` that stands for the other process: it counts its runs, and each run does what the test said —
/// stores new tokens in a ``ControlledAuthStore`` (as the other process stores its answer), or throws.
///
/// ```swift
/// let stored = ControlledAuthStore(expired)
/// let host = ScriptedRefreshHost { run in
///     stored.replaceStored(Auth(accessToken: "access-\(run)", refreshToken: "refresh-\(run)"))
/// }
/// let manager = AuthManager(store: stored, refresher: endpoint, configuration: .init(refreshHost: host))
/// ```
public final class ScriptedRefreshHost: RefreshHost {
    private let state = Mutex<(runs: Int, requests: [RefreshRequest], error: (any Error)?)>((0, [], nil))
    private let action: @Sendable (Int) async throws -> Void

    /// A host whose `n`-th run (from 1) calls `action(n)`, unless told to fail.
    public init(_ action: @escaping @Sendable (Int) async throws -> Void = { _ in }) {
        self.action = action
    }

    /// How many times it ran.
    public var runs: Int { state.withLock { $0.runs } }
    /// What each run was asked for, in order.
    public var requests: [RefreshRequest] { state.withLock { $0.requests } }

    /// Makes the next runs throw `error` (and do nothing else); `nil` runs the action again.
    public func fail(with error: (any Error)?) { state.withLock { $0.error = error } }

    public func refresh(_ request: RefreshRequest) async throws {
        let (run, error) = state.withLock { state -> (Int, (any Error)?) in
            state.runs += 1
            state.requests.append(request)
            return (state.runs, state.error)
        }
        if let error { throw error }
        try await action(run)
    }
}
