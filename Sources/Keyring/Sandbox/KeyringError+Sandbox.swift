#if canImport(Glibc)
import Glibc  // strerror
#endif

/// The errors of the app's keyring file in a sandbox (``SandboxBackend``), with advice that fits there: never the
/// host session's (`dbus-run-session`, Seahorse in the sandbox), since the app cannot act on it from inside.
extension KeyringError {
    // MARK: The portal and the host

    /// The call's own timeout (a portal that does not answer), or its wait for this process's turn.
    static func appKeyringTimedOut(after timeout: Duration, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .timedOut, "The app's keyring (through the Secret portal) did not answer within \(timeout).",
            fix: "Check that xdg-desktop-portal and gnome-keyring run on the host; an app that bundles libsecret "
                + "older than 0.21.4 can miss the portal's answer: bundle 0.21.4 or newer.",
            underlying: detail)
    }

    /// No portal gave the key while `doing`: libsecret then tried `org.freedesktop.secrets`, which the sandbox hides.
    static func noSecretPortal(doing: String, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .portalUnavailable,
            "This app runs in a sandbox, and no Secret portal (org.freedesktop.portal.Secret) gave it the key to "
                + "its keyring while \(doing): libsecret then tries org.freedesktop.secrets, which the sandbox hides.",
            fix: "On the host, run xdg-desktop-portal with a Secret backend (gnome-keyring provides one).",
            underlying: detail)
    }

    /// The portal's "user interaction failed": no key without the host's login keyring.
    static func hostKeyringLocked(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .locked,
            "The Secret portal gave no key for the app's keyring: the host's login keyring is locked, or "
                + "gnome-keyring does not run there.",
            fix: "Unlock the login keyring on the host (log in to the desktop session, or open Seahorse) and retry; "
                + "the app's items are intact.",
            underlying: detail)
    }

    // MARK: The file

    /// libsecret's check of the file, or this package's (``AppKeyringFile/problem(in:)``), found `problem`.
    static func appKeyringFileDamaged(_ path: String, _ problem: String, _ detail: Detail? = nil) -> KeyringError {
        KeyringError(
            .misconfigured, "The app's keyring file \(path) is damaged: \(problem).",
            fix: "Move it aside (mv '\(path)' '\(path).damaged'); the app then starts with an empty keyring and "
                + "signs in again.",
            underlying: detail)
    }

    static func appKeyringFileWrongKey(_ path: String, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .locked,
            "The app's keyring file \(path) does not open with the key the Secret portal gave (it was written with "
                + "another key, by another app, or is damaged).",
            fix: "If the file came from elsewhere, move it aside (the app then signs in again); the key derives "
                + "from the host's login keyring and the app's id.",
            underlying: detail)
    }

    /// A GIO error of libsecret's while `doing`.
    static func appKeyringFileUnusable(_ path: String, doing: String, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .misconfigured, "The app's keyring file \(path) could not be used while \(doing).",
            fix: "Check that the file and its directory belong to this user and are readable and writable "
                + "(chmod 700 on the directory, 600 on the file).",
            underlying: detail)
    }

    /// No space left on the disk that holds the file while `doing` (a write); a failed write is undone
    /// (`AppKeyringFile.restoreAfterFailedWrite`).
    static func appKeyringDiskFull(_ path: String, doing: String, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .misconfigured,
            "The disk that holds the app's keyring file \(path) is full: nothing was written while \(doing).",
            fix: "Free some space on that disk, then retry.",
            underlying: detail)
    }

    /// The file `what` (“cannot be read”) with `errno`, before libsecret was given it.
    static func appKeyringFileUnusable(_ path: String, _ what: String, errno: Int32) -> KeyringError {
        KeyringError(
            .misconfigured, "The app's keyring file \(path) \(what) (\(String(cString: strerror(errno)))).",
            fix: "Check that it belongs to this user and is readable and writable (chmod 600).")
    }

    static func appKeyringFileNotRegular(_ path: String) -> KeyringError {
        KeyringError(
            .misconfigured, "The app's keyring file \(path) is not a regular file.",
            fix: "Move it aside (mv '\(path)' '\(path).not-a-keyring'); the app then starts with an empty keyring "
                + "and signs in again.")
    }

    static func appKeyringFileTooLarge(_ path: String, limit: Int) -> KeyringError {
        KeyringError(
            .misconfigured,
            "The app's keyring file \(path) is larger than \(limit >> 20) MiB: it is not a keyring file of this app.",
            fix: "Move it aside (mv '\(path)' '\(path).not-a-keyring'); the app then starts with an empty keyring and "
                + "signs in again.")
    }

    // MARK: Writers

    /// Another process wrote the file during the call and during its second try.
    static func appKeyringWrittenMeanwhile(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .other, "Another process of this app wrote its keyring file during the call, twice; nothing was written.",
            fix: "Retry: the call reads the file afresh.", underlying: detail)
    }

    static func appKeyringWrittenEachRound(rounds: Int) -> KeyringError {
        KeyringError(
            .other,
            "Other processes of this app wrote its keyring file each of the \(rounds) times this call was "
                + "about to; nothing was written.",
            fix: "Retry; if it persists, another process of the app writes the file without pause.")
    }

    static func appKeyringLockUnopenable(_ path: String, errno: Int32) -> KeyringError {
        KeyringError(
            .misconfigured,
            "The app's keyring lock file \(path) cannot be opened (\(String(cString: strerror(errno)))).",
            fix: "Check that the directory belongs to this user and is writable.")
    }

    static func appKeyringLockFailed(_ path: String, errno: Int32) -> KeyringError {
        .other("The app's keyring lock \(path) could not be taken.", Detail(String(cString: strerror(errno))))
    }

    static func appKeyringLockHeld(_ path: String, for timeout: Duration) -> KeyringError {
        KeyringError(
            .timedOut,
            "Another process of this app held its keyring file's lock (\(path)) for more than \(timeout); "
                + "nothing was written.",
            fix: "That process is stuck in a write to the file (its file system may hang): end it, or "
                + "retry once it is done.",
            underlying: "flock \(path)")
    }

    /// What the thread of a call learns when it goes on after its caller gave up on it: nobody reads it.
    static var appKeyringCallAbandoned: KeyringError {
        .timedOut(after: .zero, "the call was abandoned at its timeout, before it wrote anything")
    }

    static var appKeyringKeptNothing: KeyringError {
        .other("The app's keyring did not keep the item it was given.", nil)
    }

    /// A delete that libsecret's file backend would carry out on `count` items with further attributes too.
    static func appKeyringDeleteWouldTakeOthers(_ count: Int) -> KeyringError {
        KeyringError(
            .other,
            "Deleting the item would also delete \(count) item(s) with further attributes in the app's keyring.",
            fix: "Delete those items first (they belong to another part of the app), or leave this one.")
    }

    // MARK: What the file cannot do

    /// ``Keyring/lock(_:)`` in the sandbox: there is nothing to lock.
    static var appKeyringCannotLock: KeyringError {
        KeyringError(
            .other, "The app's keyring in this sandbox cannot be locked: each process opens it with the Secret portal's key.",
            fix: "Lock the host's login keyring instead; the portal then gives no key until it is unlocked.")
    }

    /// ``Keyring/changes()`` in the sandbox: the file backend announces nothing.
    static var appKeyringAnnouncesNoChanges: KeyringError {
        KeyringError(
            .other, "The app's keyring in a sandbox announces no changes: it is a file, not a service on the bus.",
            fix: "Read the item again when it matters; writers are still ordered by the item's lock.")
    }
}
