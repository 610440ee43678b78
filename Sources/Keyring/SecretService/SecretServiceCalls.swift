import CLibSecret

/// Thrown when an operation met locked items or collections; ``Keyring`` unlocks them (if its prompt policy
/// allows) and runs the operation again.
struct NeedsUnlock: Error {
    /// The operation's attributes: its locked exact items are to be unlocked.
    let attributes: [String: String]
    /// The collection the operation writes to, when that is locked too.
    var collection: KeyringCollection?
}

/// The D-Bus calls of one blocking operation, sharing its `GCancellable`, split by job: searching
/// (`+Search`), secrets (`+Secrets`), items, collections and locks (`+Items`), and the service's signals (`+Changes`).
///
/// One way to the bus: every method call is a ``DBusBatch`` on libsecret's connection. Items are addressed by D-Bus
/// object path, not through libsecret's `SecretItem` proxies: a proxy costs a `GetAll` round trip and a bus match rule
/// of its own. Calls whose answers do not depend on each other go out in one batch and cost one round trip. libsecret opens the encrypted session (and encrypts and decrypts secrets
/// with its keys), and runs the calls that may show a prompt: creating, deleting, locking and unlocking.
///
/// Only ever used on a ``BlockingCall`` thread, inside one call: it is neither stored nor sent anywhere. The one
/// exception, a hinted lookup (`SecretServiceBackend+HintedLookup.swift`), uses it in its task for the calls that do
/// not block: sending a batch and reading its replies.
struct SecretServiceCalls {
    let service: UnsafeMutablePointer<SecretService>
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// How long a batch waits for its replies: GDBus's default for a call, or the operation's timeout when that is
    /// longer (a search that KeePassXC answers once its unlock dialog is closed may take the prompt's time).
    let replyTimeout: Duration

    init(service: UnsafeMutablePointer<SecretService>, cancellable: UnsafeMutablePointer<GCancellable>, timeout: Duration) {
        self.service = service
        self.cancellable = cancellable
        replyTimeout = max(timeout, DBusBatch.callTimeout)
    }

    static let itemInterface = "org.freedesktop.Secret.Item"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let servicePath = "/org/freedesktop/secrets"

    /// Connects to the Secret Service (libsecret shares one connection and session per process) and runs `body`, whose
    /// calls may each wait `timeout` (never less than GDBus's default). Any failure to connect is "no Secret Service",
    /// except the cancellation of the call.
    ///
    /// `session` counts the sessions tried: a session kwalletd5 cannot decode for, or forgets, is replaced, up to
    /// three sessions in all. One new session was not enough: both failures, one after the other, made one of 300
    /// `tokenctl show` runs fail in a full test run.
    static func with<T>(
        _ cancellable: UnsafeMutablePointer<GCancellable>,
        timeout: Duration,
        session: Int = 1,
        _ body: (SecretServiceCalls) throws -> T
    ) throws -> T {
        // Registers the Secret Service's D-Bus error names (IsLocked, NoSuchObject), so that replies to our own
        // D-Bus calls arrive as SECRET_ERROR codes like those of libsecret's calls.
        _ = secret_error_get_quark()
        // Optional on purpose: libsecret returns NULL when it sets the error, and a non-optional result
        // would force-unwrap that NULL before `withGError` could throw (a crash when there is no session bus).
        let connected: UnsafeMutablePointer<SecretService>?
        do {
            connected = try connectRetryingKeyExchange(cancellable)
        } catch let failure as GLibFailure where !failure.info.isCancellation && failure.info.kind == .other {
            throw KeyringError.connectionFailure(failure.info)
        }
        guard let service = connected else { throw KeyringError.serviceUnavailable("libsecret returned no service") }
        defer { g_object_unref(service) }
        do {
            let result = try body(SecretServiceCalls(service: service, cancellable: cancellable, timeout: timeout))
            OpenService.remember(service)
            return result
        } catch is UndecodableSecret where session < 3 {
            // The session's keys disagree (see UndecodableSecret): drop libsecret's shared service, so that the
            // next one opens a new session, and run `body` again. Only reads decode, so nothing was written.
            OpenService.forget()
            secret_service_disconnect()
            return try with(cancellable, timeout: timeout, session: session + 1, body)
        } catch let failure as GLibFailure where session < 3 && (failure.info.isUnknownSession || failure.info.isGoneOwner) {
            // kwalletd5 sometimes forgets (or never registers) the session it has just opened for us, and a keyring
            // that was restarted (gnome-keyring after a crash, started again by D-Bus) knows no session of its
            // predecessor, for good: the call that needed it was refused, so nothing was written. A new session.
            // libsecret's service object also keeps the bus name's owner as it was when the process made it (GDBus
            // updates it only in a main context nobody here iterates), and sends its prompts there: a call to an owner
            // that is gone reached no one. A new service object, with the name's owner now.
            OpenService.forget()
            secret_service_disconnect()
            return try with(cancellable, timeout: timeout, session: session + 1, body)
        } catch let undecodable as UndecodableSecret where undecodable.decryptedToBinary {
            throw KeyringError.notText(undecodable.path)
        } catch let undecodable as UndecodableSecret {
            throw KeyringError.other("The Secret Service sent a secret for \(undecodable.path) that could not be decoded.", nil)
        }
    }

    /// A secret of this session that did not decrypt. With kwalletd5 (KF 5.103) about one session in 150 decrypted
    /// nothing in our tests, presumably because the two sides derived different keys in the Diffie-Hellman exchange;
    /// a new session fixes it. Decrypted with the wrong key, a secret now and then passes the padding check and comes
    /// out as bytes that are not UTF-8 (one `tokenctl show` of 300 in a full run): those are tried with a new session
    /// too, and only bytes that stay binary in every session are `notText`.
    struct UndecodableSecret: Error {
        let path: String
        /// Whether it decrypted, to bytes that are not UTF-8 text.
        var decryptedToBinary = false
    }

    /// `secret_service_get_sync` with a session, tried up to three times while KWallet rejects the key exchange.
    ///
    /// kwalletd5 (KF 5.103) now and then refuses libsecret's Diffie-Hellman public key ("Client public key size is
    /// invalid"; seen about once in 100 `secret-tool` runs), presumably when the key has a leading zero byte and is
    /// sent shorter than 128 bytes. Each try draws a new key; the connection itself is libsecret's cached one.
    private static func connectRetryingKeyExchange(_ cancellable: UnsafeMutablePointer<GCancellable>) throws -> UnsafeMutablePointer<SecretService>? {
        var attempt = 1
        while true {
            do {
                return try withGError("connecting to the Secret Service") {
                    secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, $0)
                }
            } catch let failure as GLibFailure where attempt < 3 && failure.info.message.contains("public key size is invalid") {
                attempt += 1
            }
        }
    }

    // MARK: The bus

    /// libsecret's connection to the session bus, which every call of this package uses.
    var connection: OpaquePointer {
        get throws {
            guard let connection = clibsecret_service_connection(service) else {
                throw KeyringError.serviceUnavailable("libsecret's service has no D-Bus connection")
            }
            return connection
        }
    }

    /// A batch of `size` calls to the Secret Service over libsecret's connection, bounded by this call's cancellable.
    func makeBatch(size: Int) throws -> DBusBatch {
        DBusBatch(
            connection: try connection, destination: String(cString: clibsecret_service_bus_name(service)), size: size,
            cancellable: cancellable, timeout: replyTimeout)
    }

    /// Calls `method` of the Secret Service object itself, alone, and reads its reply of type `replyType` with `read`.
    func callService<T>(
        _ method: String, _ parameters: OpaquePointer, replyType: String, _ action: @autoclosure () -> String,
        _ read: (OpaquePointer) throws -> T
    ) throws -> T? {
        let batch = try makeBatch(size: 1)
        batch.call(
            0, path: Self.servicePath, interface: Self.serviceInterface, method: method, parameters: parameters,
            replyType: replyType)
        batch.wait()
        return try batch.take(0, action(), read)
    }
}
