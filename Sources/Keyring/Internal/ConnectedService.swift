import CLibSecret
import Synchronization

/// libsecret's shared `SecretService` with its open session, as the last blocking call connected it, for
/// ``FastLookup``, which must not connect (connecting blocks).
///
/// `@unchecked Sendable` is safe: the object is only read through it — its connection, bus name and session path,
/// fixed once the session is open, and the session's keys to decode a secret (`secret_service_decode_dbus_secret`
/// copies them into a cipher of its own per call) — and GObject reference counting is atomic. The reference is
/// released in `deinit`, once no caller holds the holder.
final class ConnectedService: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<SecretService>

    private init(_ pointer: UnsafeMutablePointer<SecretService>) {
        self.pointer = pointer
        g_object_ref(pointer)
    }

    deinit { g_object_unref(pointer) }

    private static let last = Mutex<ConnectedService?>(nil)

    /// The service the last blocking call connected, if it has not been disconnected since.
    static var current: ConnectedService? { last.withLock { $0 } }

    /// Keeps `service` (libsecret's shared instance) unless it is the one kept already.
    static func remember(_ service: UnsafeMutablePointer<SecretService>) {
        last.withLock { last in
            if last?.pointer != service { last = ConnectedService(service) }
        }
    }

    /// Forgets the service before libsecret's is dropped (`secret_service_disconnect`), so a new session is used.
    static func forget() {
        last.withLock { $0 = nil }
    }
}
