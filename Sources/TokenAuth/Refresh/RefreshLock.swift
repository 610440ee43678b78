/// Mutual exclusion for refreshes of one set of credentials across processes.
///
/// Two processes sharing one keyring item must never both spend the same refresh token: with rotation and
/// reuse detection (RFC 9700 §4.14), the second use revokes the whole token family and signs the user out.
/// ``AuthManager`` refreshes while holding this lock, and reads the store again once it has it.
///
/// ## Implementation requirements
/// - A holder that crashes must release the lock (as `flock` does when the process dies).
/// - Waiting must be bounded: throw when the lock cannot be had in reasonable time.
public protocol RefreshLock: Sendable {
    /// Runs `body` while holding the lock.
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}
