/// Reads the stored token bundle.
///
/// ## Implementation requirements
/// - Return `nil` only when nothing is stored. A store that cannot tell (a locked keyring, an unreachable
///   service, a timeout) must throw: an app that took "could not read" for "nothing stored" would send
///   its user to the sign-in screen, or overwrite good credentials with a new login.
/// - Throw, and leave the entry as it is, when what is stored cannot be understood.
public protocol AuthLoader: Sendable {
    /// The stored bundle, or `nil` when nothing is stored.
    func load() async throws -> Auth?
}
