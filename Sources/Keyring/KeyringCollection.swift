/// Which collection (keyring) new items are written to.
public enum KeyringCollection: Sendable, Hashable {
    /// The collection behind the `default` alias, usually the login keyring.
    case `default`
    /// The in-memory session collection, forgotten when the user logs out (where the service has one).
    case session
    /// A collection by its D-Bus object path, e.g. `/org/freedesktop/secrets/collection/login`.
    case path(String)
}

extension KeyringCollection: CustomStringConvertible {
    /// `default`, `session`, or the path.
    public var description: String {
        switch self {
        case .default: "default"
        case .session: "session"
        case .path(let path): path
        }
    }
}
