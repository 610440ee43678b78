import Keyring
import TokenAuth

/// Holds a systemd-logind delay lock on sleep and shutdown while a refresh token is at stake: a `RefreshWindowGuard`
/// over `Keyring`'s `SleepInhibitor`, which `AuthManager.forKeyringItem` adds to every manager. TokenAuthFileStore
/// links no D-Bus, so `AuthManager.forFileItem` adds none: an app that keeps its tokens in a file and links this
/// module passes one in the configuration's `windowGuards`, as `tokenctl` does.
///
/// A laptop whose lid closes between a refresh grant and the store of its answer would suspend with the answer on
/// its way; logind holds suspend and shutdown off until the lock is released (at most its `InhibitDelayMaxSec`, 5 s
/// unless configured otherwise). Where there is no logind, or it does not answer within the inhibitor's timeout,
/// nothing is held and the refresh goes on: it never fails for this.
///
/// ```swift
/// var configuration = AuthManager.Configuration()
/// configuration.windowGuards = [SleepInhibitorGuard(inhibitor: SleepInhibitor(who: "Example", why: "Storing tokens"))]
/// ```
public struct SleepInhibitorGuard: RefreshWindowGuard {
    /// What takes the locks.
    public let inhibitor: SleepInhibitor

    /// A guard taking its locks with `inhibitor`; by default as "TokenKeyring", "Storing refreshed sign-in tokens",
    /// on the system bus.
    public init(inhibitor: SleepInhibitor = SleepInhibitor(who: "TokenKeyring", why: "Storing refreshed sign-in tokens")) {
        self.inhibitor = inhibitor
    }

    public func enter() async -> @Sendable () -> Void {
        let lock = await inhibitor.acquire()
        return { lock?.release() }
    }
}

extension AuthManager.Configuration {
    /// This configuration with a ``SleepInhibitorGuard`` among its window guards (added unless it has one).
    var holdingOffSleep: Self {
        guard !windowGuards.contains(where: { $0 is SleepInhibitorGuard }) else { return self }
        var configuration = self
        configuration.windowGuards.append(SleepInhibitorGuard())
        return configuration
    }
}
