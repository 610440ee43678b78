import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// ``Keyring`` in a sandbox: the same calls on libsecret's file backend (see `SandboxKeyring`), bounded by the same
/// timeout, with the portal's failures told as what they are.
///
/// With libsecret older than 0.21.4, a call may miss the Secret portal's answer and wait forever (libsecret issue
/// 58): such a call ends at its timeout and is made once more, since the next one usually gets the answer.
extension Keyring {
    /// Whether calls go to the app's own keyring file through the Secret portal, as in a Flatpak or Snap sandbox,
    /// rather than to the Secret Service.
    public static var usesSandboxKeyring: Bool { SandboxKeyring.isActive }

    /// The app's keyring file in the sandbox: `$SECRET_FILE_TEST_PATH`, else `$XDG_DATA_HOME/keyrings/default.keyring`
    /// (Flatpak sets `XDG_DATA_HOME` to `~/.var/app/APP_ID/data`).
    public static var sandboxKeyringFile: String {
        let environment = ProcessInfo.processInfo.environment
        if let test = environment["SECRET_FILE_TEST_PATH"], !test.isEmpty { return test }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? URL(filePath: environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path)
                .appending(path: ".local/share").path
        return URL(filePath: data).appending(path: "keyrings/default.keyring").path
    }

    /// Runs `body` on a blocking thread, bounded by the timeout by abandoning the thread (libsecret's calls there
    /// cannot be cancelled), and once more when it timed out or met a write it had not seen; maps the failures of the
    /// sandbox's keyring. A call that began to write is not abandoned (see `SandboxCall`).
    func sandboxCall<T: Sendable>(_ doing: String, _ body: @escaping @Sendable (SandboxCall) throws -> T) async throws -> T {
        do {
            return try await sandboxAttempt(doing, body)
        } catch let error as KeyringError where error.code == .timedOut || error.underlying?.hasPrefix(Self.externallyModified) == true {
            logger.debug(
                "the sandbox's keyring call is made once more",
                metadata: ["reason": "\(error.code == .timedOut ? "timed out (libsecret < 0.21.4 can miss the portal's answer)" : "another process wrote the file")"])
            return try await sandboxAttempt(doing, body)
        }
    }

    /// How a store or delete in the sandbox writes: see `SandboxKeyringFile.write`.
    func sandboxWriter(_ call: SandboxCall) -> SandboxKeyring.Writer {
        SandboxKeyring.Writer(file: Self.sandboxKeyringFile, timeout: configuration.timeout, call: call)
    }

    /// `g-io-error-quark/23`: the file backend's store found the file written by another process since it read it.
    private static let externallyModified = "g-io-error-quark/\(G_IO_ERROR_WRONG_ETAG.rawValue):"

    /// Why a call waited in vain for its turn: another call of this process is still inside libsecret.
    private static let turnWait: KeyringError.Detail = "waiting for this process's other keyring calls"

    private func sandboxAttempt<T: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (SandboxCall) throws -> T
    ) async throws -> T {
        let file = Self.sandboxKeyringFile
        let call = SandboxCall()
        let timeout = configuration.timeout
        do {
            return try await BlockingCall.run(timeout: timeout, abandoning: { call.abandon() }) { _ in
                // Whatever happens below, the thread ends the call: it gives the turn back, or — abandoned — marks
                // libsecret's backend for dropping by the next call (it may have cached one of its own).
                defer { call.end() }
                guard call.start(within: timeout) else { throw KeyringError.timedOut(after: timeout, Self.turnWait) }
                try SandboxKeyringFile.prepare(file)
                do {
                    return try body(call)
                } catch {
                    // libsecret changes its items in memory before it writes the file, and keeps the change when the
                    // write fails: the next call drops them, or a later write would save what failed.
                    SandboxKeyringFile.invalidate()
                    if let failure = error as? GLibFailure { throw Self.sandboxError(failure.info, doing: doing, file: file) }
                    throw error
                }
            }
        } catch let error as KeyringError where error.code == .timedOut && (error.underlying == nil || error.underlying == Self.turnWait.raw) {
            // The call's own timeout (a waiting portal) or its turn's; a lock held too long by another process keeps
            // its own sentence.
            throw KeyringError(
                .timedOut, "The app's keyring (through the Secret portal) did not answer within \(configuration.timeout).",
                fix: "Check that xdg-desktop-portal and gnome-keyring run on the host; an app that bundles libsecret "
                    + "older than 0.21.4 can miss the portal's answer: bundle 0.21.4 or newer.",
                underlying: error.detail)
        }
    }

    /// The error for a libsecret failure in the sandbox, with advice that fits there (the failures as libsecret
    /// 0.21.7 and 0.20.5 report them through its file backend; see docs/Flatpak.md).
    static func sandboxError(_ info: GErrorInfo, doing: String, file: String) -> KeyringError {
        let io = info.domain == "g-io-error-quark"
        if info.kind == .dbusTimeout || info.kind == .noReply || (io && info.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue)) {
            return .timedOut(after: .seconds(25), info.detail)
        }
        if io && info.code == Int32(G_IO_ERROR_WRONG_ETAG.rawValue) {
            return KeyringError(
                .other, "Another process of this app wrote its keyring file during the call, twice; nothing was written.",
                fix: "Retry: the call reads the file afresh.", underlying: info.detail)
        }
        if info.kind == .noProvider {
            return KeyringError(
                .portalUnavailable,
                "This app runs in a sandbox, and no Secret portal (org.freedesktop.portal.Secret) gave it the key to "
                    + "its keyring while \(doing): libsecret then tries org.freedesktop.secrets, which the sandbox hides.",
                fix: "On the host, run xdg-desktop-portal with a Secret backend (gnome-keyring provides one).",
                underlying: info.detail)
        }
        if io && info.code == Int32(G_IO_ERROR_FAILED.rawValue) && info.message.contains("user interaction failed") {
            return KeyringError(
                .locked,
                "The Secret portal gave no key for the app's keyring: the host's login keyring is locked, or "
                    + "gnome-keyring does not run there.",
                fix: "Unlock the login keyring on the host (log in to the desktop session, or open Seahorse) and retry; "
                    + "the app's items are intact.",
                underlying: info.detail)
        }
        if io && (info.isCancellation || info.message.contains("user interaction")) {
            return .portalRefused("to give the key for the app's keyring (\(info.message))", info.detail)
        }
        if info.domain == "secret-error" && info.message.contains("portal") {
            return .portalRefused("to give a usable key for the app's keyring (\(info.message))", info.detail)
        }
        if info.domain == "secret-error"
            && (info.code == Int32(SECRET_ERROR_INVALID_FILE_FORMAT.rawValue) || info.message.contains("derive")) {
            return KeyringError(
                .misconfigured, "The app's keyring file \(file) is damaged (\(info.message)).",
                fix: "Move it aside (mv '\(file)' '\(file).damaged'); the app then starts with an empty keyring and "
                    + "signs in again.",
                underlying: info.detail)
        }
        if info.domain == "secret-error" {
            return KeyringError(
                .locked,
                "The app's keyring file \(file) does not open with the key the Secret portal gave (it was written with "
                    + "another key, by another app, or is damaged).",
                fix: "If the file came from elsewhere, move it aside (the app then signs in again); the key derives "
                    + "from the host's login keyring and the app's id.",
                underlying: info.detail)
        }
        if io {
            return KeyringError(
                .misconfigured, "The app's keyring file \(file) could not be used while \(doing).",
                fix: "Check that the file and its directory belong to this user and are readable and writable "
                    + "(chmod 700 on the directory, 600 on the file).",
                underlying: info.detail)
        }
        return .other("The app's keyring failed while \(doing).", info.detail)
    }

    /// ``lock(_:)`` in the sandbox: there is nothing to lock.
    static var sandboxCannotLock: KeyringError {
        KeyringError(
            .other, "The app's keyring in this sandbox cannot be locked: each process opens it with the Secret portal's key.",
            fix: "Lock the host's login keyring instead; the portal then gives no key until it is unlocked.")
    }
}
