/// Something held while a refresh token is at stake: from the write ahead of a refresh grant until its answer is
/// stored, kept, or known lost.
///
/// That window is short — a request and a write — but a fault inside it is the one that signs a user out
/// everywhere, so whatever could end it early is held off while it lasts. TokenAuthKeyring's managers hold a
/// systemd-logind delay inhibitor (a laptop does not suspend between the grant and the store); `tokenctl` defers
/// SIGINT, SIGTERM and SIGHUP until the answer is stored.
///
/// ```swift
/// final class CountingGuard: RefreshWindowGuard {
///     let open = Mutex(0)
///     func enter() async -> @Sendable () -> Void {
///         open.withLock { $0 += 1 }
///         return { self.open.withLock { $0 -= 1 } }
///     }
/// }
/// ```
///
/// ## Implementation requirements
/// - Never fail the refresh: a guard that cannot hold what it guards with (no logind) holds nothing.
/// - Be quick to enter: the grant waits for it. Bound any call that may hang.
/// - Windows overlap when several managers of a process refresh at once: count them, do not assume one.
public protocol RefreshWindowGuard: Sendable {
    /// Called just before the write ahead of a refresh grant.
    /// - Returns: what ends this hold, called once when the window closes.
    func enter() async -> @Sendable () -> Void
}

extension Array where Element == any RefreshWindowGuard {
    /// Enters every guard, in order.
    /// - Returns: what ends every hold, in the reverse order.
    func enter() async -> @Sendable () -> Void {
        var releases: [@Sendable () -> Void] = []
        for windowGuard in self { releases.append(await windowGuard.enter()) }
        let taken = releases
        return { for release in taken.reversed() { release() } }
    }
}
