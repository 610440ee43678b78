import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The checks of ``Keyring/diagnose()`` on the Secret Service: the session bus, a Secret Service provider on it, a
/// session with it, and the default collection and its lock state, run on one blocking thread.
struct SecretServiceDiagnosis {
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// The checks' bound, which the calls of the last checks may each wait when it is longer than GDBus's default.
    let timeout: Duration
    /// The process's environment: the bus address, and what ``KeyringSetupAdvice`` reads.
    let environment: [String: String]
    static let serviceName = "org.freedesktop.secrets"

    var busAddress: String? { environment["DBUS_SESSION_BUS_ADDRESS"] }

    private typealias Check = KeyringDiagnosis.Check

    /// The checks, bounded by `timeout`; a timeout, too, is a failed check.
    static func run(timeout: Duration) async -> KeyringDiagnosis {
        let environment = ProcessInfo.processInfo.environment
        do {
            return try await BlockingCall.run(timeout: timeout) { cancellable in
                SecretServiceDiagnosis(cancellable: cancellable, timeout: timeout, environment: environment).run()
            }
        } catch let error as KeyringError {
            let check = KeyringDiagnosis.Check(name: "Secret Service", status: .failed, detail: error.reason, fix: error.fix)
            return KeyringDiagnosis(checks: [check], error: error)
        } catch {
            let failure = KeyringError.diagnosisInterrupted(error)
            return KeyringDiagnosis(
                checks: [.init(name: "Secret Service", status: .failed, detail: failure.reason, fix: nil)], error: failure)
        }
    }

    /// The process owning the service name, from the bus (`GetConnectionUnixProcessID`) and `/proc/PID/comm`;
    /// `nil` when either cannot say (another PID namespace, say). Best effort: the diagnosis goes on without it.
    func owner(_ connection: OpaquePointer) -> KeyringProvider? {
        // Optional on purpose, like the connection above: NULL with the error set.
        let reply: OpaquePointer?? = try? withGError("asking the bus who owns \(Self.serviceName)") {
            g_dbus_connection_call_sync(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "GetConnectionUnixProcessID", Variant.tuple([Variant.string(Self.serviceName)]), nil,
                G_DBUS_CALL_FLAGS_NONE, -1, cancellable, $0)
        }
        guard let reply, let reply else { return nil }
        defer { g_variant_unref(reply) }
        let child = Variant.firstChild(reply)
        defer { g_variant_unref(child) }
        guard g_variant_classify(child) == G_VARIANT_CLASS_UINT32 else { return nil }
        let pid = Int32(bitPattern: g_variant_get_uint32(child))
        guard let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        return KeyringProvider(command: String(command.prefix { !$0.isNewline }), processID: pid)
    }

    func run() -> KeyringDiagnosis {
        var checks: [Check] = []
        var provider: KeyringProvider?
        // The fixes that fit this machine: a display or none, gnome-keyring installed or not, which provider runs.
        var advice: KeyringSetupAdvice { KeyringSetupAdvice(environment: environment, provider: provider) }
        func fail(_ name: String, _ error: KeyringError) -> KeyringDiagnosis {
            checks.append(Check(name: name, status: .failed, detail: error.reasonWithCause, fix: error.fix))
            return KeyringDiagnosis(checks: checks, error: error, provider: provider)
        }

        // 1. The session bus.
        // Optional on purpose: GIO returns NULL when it sets the error (see `SecretServiceCalls.with`).
        let connection: OpaquePointer?
        do {
            connection = try withGError("connecting to the session bus") {
                g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, $0)
            }
        } catch let failure as GLibFailure {
            return fail("session bus", .noSessionBus(address: busAddress, failure.info.detail))
        } catch {
            return fail("session bus", .other("The session bus check failed.", "\(error)"))
        }
        guard let connection else {
            return fail("session bus", .serviceUnavailable("GIO returned no connection to the session bus"))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        checks.append(Check(name: "session bus", status: .ok, detail: busAddress ?? "reachable (autolaunched)", fix: nil))

        // 2. A Secret Service provider on it, running or startable.
        do {
            let name = Variant.tuple([Variant.string(Self.serviceName)])
            let owned = try askBus(connection, "NameHasOwner", name, replyType: "(b)") { reply in
                let owned = Variant.firstChild(reply)
                defer { g_variant_unref(owned) }
                return g_variant_get_boolean(owned) != 0
            }
            if owned == true {
                if let found = owner(connection) {
                    provider = found
                    checks.append(Check(name: "Secret Service", status: .ok, detail: "\(Self.serviceName) is owned by \(found)", fix: nil))
                } else {
                    checks.append(Check(name: "Secret Service", status: .ok, detail: "\(Self.serviceName) is running", fix: nil))
                }
            } else {
                let activatable = try askBus(connection, "ListActivatableNames", nil, replyType: "(as)") { reply in
                    let names = Variant.firstChild(reply)
                    defer { g_variant_unref(names) }
                    return Variant.stringArray(names).contains(Self.serviceName)
                }
                guard activatable == true else {
                    return fail(
                        "Secret Service",
                        KeyringError.serviceUnavailable("nobody owns \(Self.serviceName) and D-Bus cannot start it")
                            .replacingFix(advice.startService))
                }
                checks.append(Check(
                    name: "Secret Service", status: .ok,
                    detail: "\(Self.serviceName) is not running; D-Bus will start it on first use", fix: nil))
            }
        } catch let failure as GLibFailure {
            return fail("Secret Service", .serviceUnavailable(failure.info.detail))
        } catch {
            return fail("Secret Service", .other("The Secret Service check failed.", "\(error)"))
        }

        // 3. A session with it, and 4. the default collection.
        do {
            return try SecretServiceCalls.with(cancellable, timeout: timeout) { calls in
                checks.append(Check(name: "session", status: .ok, detail: "opened a session with the Secret Service", fix: nil))
                guard let collection = try calls.collection(.default) else {
                    return fail(
                        "default collection",
                        KeyringError.noDefaultCollection("no collection behind the `default` alias")
                            .replacingFix(advice.createDefault))
                }
                let described = "\"\(collection.label)\" (\(collection.path))"
                if collection.isLocked {
                    checks.append(Check(
                        name: "default collection", status: .warning, detail: "\(described) is locked",
                        fix: advice.unlock(collectionPath: collection.path)))
                } else {
                    checks.append(Check(name: "default collection", status: .ok, detail: "\(described) is unlocked", fix: nil))
                }
                return KeyringDiagnosis(
                    checks: checks, error: nil, provider: provider, isDefaultCollectionLocked: collection.isLocked)
            }
        } catch let error as KeyringError {
            return fail(checks.count == 2 ? "session" : "default collection", error)
        } catch let failure as GLibFailure {
            return fail(checks.count == 2 ? "session" : "default collection",
                        .other("The Secret Service failed while \(failure.action).", failure.info.detail))
        } catch {
            return fail("session", .other("The session check failed.", "\(error)"))
        }
    }

    /// Calls `method` of the bus itself (`org.freedesktop.DBus`) and reads its reply with `read`; `nil` when GDBus
    /// gives no reply and no error. Consumes a floating `parameters`.
    private func askBus<T>(
        _ connection: OpaquePointer, _ method: String, _ parameters: OpaquePointer?, replyType: String,
        _ read: (OpaquePointer) -> T
    ) throws -> T? {
        let reply: OpaquePointer? = try withGError("asking the bus") { error in
            Variant.withType(replyType) { type in
                g_dbus_connection_call_sync(
                    connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                    parameters, type, G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error)
            }
        }
        guard let reply else { return nil }
        defer { g_variant_unref(reply) }
        return read(reply)
    }
}
