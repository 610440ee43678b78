#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import TokenAuth

/// A token store in memory that the test controls: it counts loads, saves and erases, fails on demand, and
/// holds its calls at gates, so a test can stop a refresh between "tokens received" and "tokens stored".
///
/// ```swift
/// let store = ControlledAuthStore(expired)
/// store.failSaves(with: LockedKeyring())   // the next saves throw
/// store.saveGate.close()                   // saves wait until `saveGate.open()`
/// ```
///
/// A held or failing call has already been counted, and a held load answers with what was stored when it arrived.
/// ``replaceStored(_:)`` changes what is stored behind the back of any manager, as another process sharing the entry
/// would.
public final class ControlledAuthStore: AuthStore {
    private struct State {
        var stored: Auth?
        var loads = 0
        var saves = 0
        var erases = 0
        var updates = 0
        var marks = 0
        var saved: [Auth] = []
        var loadError: (any Error)?
        var saveError: (any Error)?
        var eraseError: (any Error)?
        var markError: (any Error)?
        var saveLandsBeforeFailing = false
    }

    private let state: Mutex<State>
    /// Holds ``load()`` while closed.
    public let loadGate = Gate()
    /// Holds ``save(_:)`` while closed, before anything is stored.
    public let saveGate = Gate()

    /// Creates a store holding `auth`.
    public init(_ auth: Auth? = nil) {
        state = Mutex(State(stored: auth))
    }

    /// What is stored now.
    public var stored: Auth? { state.withLock { $0.stored } }
    /// How many times ``load()`` was called.
    public var loadCount: Int { state.withLock { $0.loads } }
    /// How many times ``save(_:)`` or ``update(_:replacing:)`` was called, failed ones included.
    public var saveCount: Int { state.withLock { $0.saves } }
    /// How many times ``erase()`` was called.
    public var eraseCount: Int { state.withLock { $0.erases } }
    /// How many of those calls were ``update(_:replacing:)``: writes of refreshed tokens.
    public var updateCount: Int { state.withLock { $0.updates } }
    /// How many times ``markRefreshStarted(_:at:)`` was called — the writes ahead of a grant — failed ones included.
    /// They are not counted in ``saveCount``.
    public var markCount: Int { state.withLock { $0.marks } }
    /// Every bundle stored successfully, in order.
    public var savedBundles: [Auth] { state.withLock { $0.saved } }

    /// Makes ``load()`` throw `error` from now on; `nil` makes it succeed again.
    public func failLoads(with error: (any Error)?) { state.withLock { $0.loadError = error } }
    /// Makes ``save(_:)`` and ``update(_:replacing:)`` throw `error` from now on — storing nothing, or with
    /// `afterStoring`, storing first: a write reported failed that landed after all, as a keyring call that timed out
    /// but completed does. `nil` makes them succeed again.
    public func failSaves(with error: (any Error)?, afterStoring: Bool = false) {
        state.withLock {
            $0.saveError = error
            $0.saveLandsBeforeFailing = afterStoring
        }
    }
    /// Makes ``markRefreshStarted(_:at:)`` throw `error` (marking nothing) from now on — a store that cannot be
    /// written before the grant; `nil` makes it succeed again. ``failSaves(with:)`` does not affect it: that one
    /// models a store that fails after the grant.
    public func failMarks(with error: (any Error)?) { state.withLock { $0.markError = error } }
    /// Makes ``erase()`` throw `error` (erasing nothing) from now on; `nil` makes it succeed again.
    public func failErases(with error: (any Error)?) { state.withLock { $0.eraseError = error } }

    /// Replaces what is stored without counting a save: what another process sharing the entry does.
    public func replaceStored(_ auth: Auth?) { state.withLock { $0.stored = auth } }

    /// What was stored when the call arrived, delivered once ``loadGate`` lets it through: a read whose answer is
    /// late, as a slow keyring's is.
    public func load() async throws -> Auth? {
        let stored = state.withLock { state in
            state.loads += 1
            return state.stored
        }
        try await loadGate.pass()
        return try state.withLock { state in
            if let error = state.loadError { throw error }
            return stored
        }
    }

    public func save(_ auth: Auth) async throws {
        state.withLock { $0.saves += 1 }
        try await saveGate.pass()
        try state.withLock { state in
            if let error = state.saveError, !state.saveLandsBeforeFailing { throw error }
            state.stored = auth
            state.saved.append(auth)
            if let error = state.saveError { throw error }
        }
    }

    /// A conditional write, as a store that refuses to create: throws ``TokenAuthError`` `missing` when nothing is
    /// stored and `superseded` when what is stored is not `previous` (`Auth.isSameVersion(as:)`); compared and
    /// written in one step, once ``saveGate`` lets it through.
    public func update(_ auth: Auth, replacing previous: Auth) async throws {
        state.withLock {
            $0.saves += 1
            $0.updates += 1
        }
        try await saveGate.pass()
        try state.withLock { state in
            if let error = state.saveError, !state.saveLandsBeforeFailing { throw error }
            guard let stored = state.stored else { throw TokenAuthError.missing("the controlled test store") }
            guard stored.isSameVersion(as: previous) else { throw TokenAuthError.superseded("the controlled test store") }
            state.stored = auth
            state.saved.append(auth)
            if let error = state.saveError { throw error }
        }
    }

    /// Marks what is stored as refreshing (`Auth.refreshStartedAt`) if it is still `stored`, in one step, without
    /// passing ``saveGate`` and without counting a save.
    public func markRefreshStarted(_ stored: Auth, at date: Date) async throws {
        try state.withLock { state in
            state.marks += 1
            if let error = state.markError { throw error }
            guard let current = state.stored else { throw TokenAuthError.missing("the controlled test store") }
            guard current.isSameVersion(as: stored) else { throw TokenAuthError.superseded("the controlled test store") }
            state.stored?.refreshStartedAt = date
        }
    }

    public func erase() async throws {
        try state.withLock { state in
            state.erases += 1
            if let error = state.eraseError { throw error }
            state.stored = nil
        }
    }
}
