/// Forgets the stored token bundle, for logout.
///
/// ## Implementation requirements
/// - Succeed when nothing is stored: logging out twice is not an error.
/// - Throw when the entry could not be removed, so that the app does not tell its user they are signed out
///   while the tokens are still on disk.
public protocol AuthEraser: Sendable {
    /// Removes the stored bundle.
    func erase() async throws
}

/// A store that can load, save and erase: what ``AuthManager`` needs.
public typealias AuthStore = AuthLoader & AuthSaver & AuthEraser
