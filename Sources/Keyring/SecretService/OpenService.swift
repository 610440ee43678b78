import CLibSecret
import Synchronization

/// libsecret's service, with its open session, as the last successful ``SecretServiceCalls/with(_:session:_:)`` had
/// it: what a hinted lookup needs to send its calls without a blocking thread (`SecretServiceBackend+HintedLookup`).
///
/// Getting the service costs a blocking call (`secret_service_get_sync`, which opens the session the first time), so
/// only a process that already has it skips one. It is forgotten whenever the code drops libsecret's service
/// (`secret_service_disconnect()`), so that it never outlives the session libsecret would use.
///
/// `@unchecked Sendable` is safe: the pointer never changes, the object is only read through libsecret's calls that
/// read a service's connection, bus name and session (which any blocking thread already makes concurrently), and the
/// reference is released once, in `deinit`. Releasing the last one (after a `forget()` during a lookup) finalizes the
/// service without a round trip: libsecret frees the session's keys, GDBus drops the proxy's signal subscriptions.
final class OpenService: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<SecretService>

    private init(retaining pointer: UnsafeMutablePointer<SecretService>) {
        g_object_ref(pointer)
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    private static let last = Mutex<OpenService?>(nil)

    /// The service at hand, if a call has opened it and nothing dropped it since.
    static var current: OpenService? { last.withLock { $0 } }

    /// Keeps `service`, which a call has just used successfully.
    static func remember(_ service: UnsafeMutablePointer<SecretService>) {
        let previous = last.withLock { last -> OpenService? in
            if last?.pointer == service { return nil }
            defer { last = OpenService(retaining: service) }
            return last
        }
        _ = previous  // released here, outside the lock
    }

    /// Forgets the service: call it with every `secret_service_disconnect()`.
    static func forget() {
        let previous = last.withLock { last in
            defer { last = nil }
            return last
        }
        _ = previous
    }
}
