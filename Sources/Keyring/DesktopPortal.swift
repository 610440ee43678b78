import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The desktop portal (`xdg-desktop-portal`), through which an app in a sandbox such as Flatpak asks the host for
/// what the sandbox keeps from it.
///
/// ```swift
/// if DesktopPortal.isSandboxed {
///     try await DesktopPortal.openURI(URL(string: "https://example.com/sign-in")!)
/// }
/// ```
public enum DesktopPortal {
    /// Whether this process runs in a Flatpak sandbox, told as libsecret and GLib tell it: `/.flatpak-info` exists.
    public static var isSandboxed: Bool { access("/.flatpak-info", F_OK) == 0 }

    /// Asks the portal's OpenURI interface (`org.freedesktop.portal.OpenURI.OpenURI`) to open `uri` with the user's
    /// handler for it on the host: the web browser, for an `https` URL.
    ///
    /// The URI travels over D-Bus only, so it is in no process's argument list on its way (a sandboxed `xdg-open`
    /// would carry it in its own). Returns once the portal has taken the request; the portal then starts the handler,
    /// or may first ask the user to choose one, and does not wait for it — nor does this.
    ///
    /// Runs off Swift's cooperative thread pool, bounded by `timeout`.
    /// - Throws: ``KeyringError`` — ``KeyringError/Code/portalUnavailable`` when no session bus or no portal
    ///   answers, ``KeyringError/Code/timedOut``, or ``KeyringError/Code/portalRefused`` when the portal refuses the
    ///   request (its reason in ``KeyringError/underlying``); `CancellationError` when the task is cancelled.
    public static func openURI(_ uri: URL, timeout: Duration = .seconds(10)) async throws {
        let text = uri.absoluteString
        try await BlockingCall.run(timeout: timeout) { cancellable in
            try openURIBlocking(text, cancellable: cancellable)
        }
    }

    private static func openURIBlocking(_ uri: String, cancellable: UnsafeMutablePointer<GCancellable>) throws {
        let connection: OpaquePointer?
        do {
            connection = try withGError("connecting to the session bus") { g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, $0) }
        } catch let failure as GLibFailure where !failure.info.isCancellation {
            throw KeyringError.noPortal(failure.info.detail)
        }
        guard let connection else { throw KeyringError.noPortal("GIO returned no connection to the session bus") }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let options = Variant.withType("{sv}") { g_variant_new_array($0, nil, 0) }
        let reply: OpaquePointer?
        do {
            reply = try withGError("asking the desktop portal to open a URI") { error in
                Variant.withType("(o)") { type in
                    g_dbus_connection_call_sync(
                        connection, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                        "org.freedesktop.portal.OpenURI", "OpenURI",
                        Variant.tuple([Variant.string(""), Variant.string(uri), options]), type,
                        G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error)
                }
            }
        } catch let failure as GLibFailure where !failure.info.isCancellation {
            if failure.info.kind == .noProvider { throw KeyringError.noPortal(failure.info.detail) }
            throw KeyringError.portalRefused("opening a URI", failure.info.detail)
        }
        if let reply { g_variant_unref(reply) }
    }
}
