import CLibSecret

/// The one place a `GError` becomes a Swift error: every libsecret, GIO and D-Bus call that can fail
/// goes through ``withGError(_:)``.
struct GErrorInfo: Sendable {
    let domain: String
    let code: Int32
    let message: String
    let kind: Kind

    /// Whether the service refused the call's session as unknown: kwalletd5's "Can't find session", or the
    /// `NoSession` of a keyring started again since the session was opened (gnome-keyring: "The session does not
    /// exist").
    var isUnknownSession: Bool {
        message.contains("Can't find session") || message.contains("org.freedesktop.Secret.Error.NoSession")
    }

    /// Whether the call went to a unique bus name (`:1.42`) that no longer exists: the owner the Secret Service's
    /// name had before the keyring was started again.
    var isGoneOwner: Bool {
        kind == .noProvider && message.contains("\":1.")
    }

    /// `noReply` is D-Bus's `NoReply`: a timeout, or a provider that left the bus before answering.
    enum Kind: Sendable { case locked, notFound, noProvider, dbusTimeout, noReply, other }

    init(_ error: UnsafeMutablePointer<GError>) {
        let quark = error.pointee.domain
        domain = String(cString: g_quark_to_string(quark))
        code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? ""
        if quark == secret_error_get_quark() {
            switch code {
            case Int32(SECRET_ERROR_IS_LOCKED.rawValue): kind = .locked
            case Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue): kind = .notFound
            default: kind = .other
            }
        } else if quark == g_dbus_error_quark() {
            switch UInt32(bitPattern: code) {
            case G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue, G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue,
                G_DBUS_ERROR_SPAWN_EXEC_FAILED.rawValue, G_DBUS_ERROR_SPAWN_FORK_FAILED.rawValue,
                G_DBUS_ERROR_SPAWN_CHILD_EXITED.rawValue, G_DBUS_ERROR_SPAWN_CHILD_SIGNALED.rawValue,
                G_DBUS_ERROR_SPAWN_FAILED.rawValue, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND.rawValue,
                G_DBUS_ERROR_SPAWN_SERVICE_INVALID.rawValue, G_DBUS_ERROR_SPAWN_FILE_INVALID.rawValue,
                G_DBUS_ERROR_DISCONNECTED.rawValue:
                kind = .noProvider
            case G_DBUS_ERROR_NO_REPLY.rawValue:
                kind = .noReply
            case G_DBUS_ERROR_TIMEOUT.rawValue, G_DBUS_ERROR_TIMED_OUT.rawValue:
                kind = .dbusTimeout
            case G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue, G_DBUS_ERROR_UNKNOWN_METHOD.rawValue:
                kind = .notFound
            default:
                kind = .other
            }
        } else if quark == g_io_error_quark() && code == Int32(G_IO_ERROR_CLOSED.rawValue) {
            kind = .noProvider
        } else if quark == g_io_error_quark() && code == Int32(G_IO_ERROR_TIMED_OUT.rawValue) {
            // GDBus's own timeout of a call (25 s by default), and ``DBusBatch``'s.
            kind = .dbusTimeout
        } else {
            kind = .other
        }
    }

    /// The error as a value for ``KeyringError/underlying``.
    var error: GLibError { GLibError(domain: domain, code: code, message: message) }

    /// Whether it is GIO's `G_IO_ERROR_CANCELLED`: the call's `GCancellable` was cancelled.
    var isCancellation: Bool { isIO(G_IO_ERROR_CANCELLED) }

    /// Whether it is the GIO error `code`.
    func isIO(_ code: GIOErrorEnum) -> Bool { domain == Self.ioDomain && self.code == Int32(code.rawValue) }

    /// GIO's error domain, `g-io-error-quark`.
    static let ioDomain = String(cString: g_quark_to_string(g_io_error_quark()))
}

/// Thrown inside a blocking call; ``BlockingCall`` turns it into a ``KeyringError``.
struct GLibFailure: Error {
    let info: GErrorInfo
    /// What the call was doing, for the error's reason.
    let action: String
}

/// Calls `body` with a `GError**`; if the call set an error, frees it and throws a ``GLibFailure``.
func withGError<T>(
    _ action: @autoclosure () -> String,
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
) throws -> T {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error {
        defer { g_error_free(error) }
        throw GLibFailure(info: GErrorInfo(error), action: action())
    }
    return result
}
