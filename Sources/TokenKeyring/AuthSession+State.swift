#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring

extension AuthSession {
    /// Where a session stands.
    public enum State: Sendable, Equatable {
        /// Nothing is stored for the current account (or no account was ever signed in): show the sign-in screen.
        case signedOut
        /// The account is signed in; its `identity` says who, after an OpenID Connect sign-in.
        case signedIn(Account)
        /// The account's item is kept, but it needs a new sign-in: the provider refused its refresh token, a refresh
        /// answered for another account, or the item cannot be read. `reason` says which, for the user.
        case signInRequired(Account, reason: String)
        /// The keyring cannot be read: locked (`error.code == .locked`: ask the user to unlock it), no Secret Service
        /// (`.serviceUnavailable`), not answering (`.timedOut`), or, in ``AuthSession/states`` only, not answering
        /// for a second yet (`.waiting`: an unlock prompt may be open; the state it gives follows when it answers). Nothing is known about the session: it is not
        /// "signed out", and nothing was deleted. `error.description` says what to do.
        case unavailable(KeyringError)
    }

    /// One signed-in account: its keyring item's `account` attribute, and who the provider said it is.
    public struct Account: Sendable, Hashable, CustomStringConvertible {
        /// The keyring item's `account` attribute.
        public let name: String
        /// Who signed in, after an OpenID Connect sign-in; `nil` otherwise.
        public let identity: Identity?

        /// Creates an account.
        public init(name: String, identity: Identity?) {
            self.name = name
            self.identity = identity
        }

        /// What to call the account in a window: the identity's display name, else its subject, else ``name``.
        public var displayName: String { identity?.displayName ?? identity?.subject ?? name }

        public var description: String { displayName }
    }

    /// The current account's name: the one chosen (a sign-in, ``switchAccount(to:)``, or the configuration), else the
    /// service's default account (`tokenctl switch`); `nil` when there is neither.
    func currentAccount() throws -> String? {
        chosenAccount ?? DefaultAccounts.account(for: configuration.service)
    }

    /// The state as the keyring says it now, whether or not the calling task is cancelled: a read that a cancelled
    /// caller gave up is no state of the session's — it would say "the keyring cannot be used", to every observer.
    func readState() async -> State {
        // In a task of its own, which the caller's cancellation does not reach; the keyring's timeout bounds it.
        let read = Task { await self.readStateNow() }
        // Observers hear within a second that the keyring keeps them waiting.
        let id = nextRead
        nextRead += 1
        pendingReads.insert(id)
        let clock = configuration.clock
        let patience = Task {
            try await clock.sleep(for: Self.keyringPatience)
            self.keyringIsSlow(read: id)
        }
        let state = await read.value
        pendingReads.remove(id)
        patience.cancel()
        return state
    }

    /// How long the keyring may take before ``states`` says it keeps the session waiting (`.unavailable` with the code
    /// `waiting`).
    static let keyringPatience = Duration.seconds(1)

    /// The read `id` has waited for the keyring for ``keyringPatience``: observers are told, unless it has ended.
    private func keyringIsSlow(read id: Int) {
        guard pendingReads.contains(id) else { return }
        publish(.unavailable(.stillWaiting(after: Self.keyringPatience)))
    }

    private func readStateNow() async -> State {
        await adoptEarlierItems()
        var name: String?
        do {
            name = try currentAccount()
            if name == nil {
                // Nothing chosen: a service with exactly one account has that one.
                let stored = try await KeyringAuthStore.accounts(of: configuration.service, keyring: configuration.keyring)
                // An account whose name gnome-keyring hides until its collection is unlocked: not "signed out".
                if let hidden = stored.first(where: { $0.attributes["account"] == nil }) {
                    return .unavailable(.hashedWhileLocked(hidden))
                }
                if stored.count == 1, let only = stored[0].attributes["account"] {
                    chosenAccount = only
                    name = only
                }
            }
            guard let name else { return .signedOut }
            let store = KeyringAuthStore(
                service: configuration.service, account: name, keyring: configuration.keyring,
                expectedClientID: configuration.clientID)
            guard let credentials = try await store.loadCredentials() else { return .signedOut }
            let account = Account(name: name, identity: credentials.identity)
            if let reason = credentials.auth.endReason { return .signInRequired(account, reason: reason) }
            return .signedIn(account)
        } catch let error as KeyringError {
            return .unavailable(error)
        } catch let error as TokenAuthError where error.isUnreadableEntry || error.code == .invalidClientConfiguration {
            // Unreadable, or another app's tokens: a sign-in (an explicit write) replaces them; nothing is sent.
            return .signInRequired(Account(name: name ?? "", identity: nil), reason: error.reason)
        } catch {
            return .unavailable(.other("The session's keyring item could not be read.", "\(error)"))
        }
    }

    /// Hands `state` to every observer when it differs from the last one handed out.
    func publish(_ state: State) {
        guard state != lastState else { return }
        lastState = state
        for observer in observers.values { observer.yield(state) }
    }

    /// Registers an observer of ``states``: it gets the current state now, and every change; the keyring is followed
    /// from the first observer on.
    func observe(_ continuation: AsyncStream<State>.Continuation) async {
        let id = nextObserver
        nextObserver += 1
        observers[id] = continuation
        continuation.onTermination = { _ in Task { await self.stopObserving(id) } }
        let state = await readState()
        continuation.yield(state)
        lastState = state
        if watching == nil { watching = Task { await self.followChanges() } }
    }

    private func stopObserving(_ id: Int) {
        observers[id] = nil
        if observers.isEmpty {
            watching?.cancel()
            watching = nil
        }
    }

    /// Reads the state again after each announcement that the keyring, or any of the service's items' locks, changed:
    /// another process signed in, refreshed or signed out.
    private func followChanges() async {
        // The keyring's signals (not in a sandbox, where only the locks speak) and every release of an item's lock.
        let changes = try? await configuration.keyring.changes()
        let releases = FileRefreshLock.releasesOfAnyItem()
        await withTaskGroup(of: Void.self) { group in
            if let changes { group.addTask { for await _ in changes { await self.changed() } } }
            group.addTask { for await _ in releases { await self.changed() } }
        }
    }

    private func changed() async {
        publish(await readState())
    }
}
