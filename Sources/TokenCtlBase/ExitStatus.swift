import Keyring
import TokenAuth

/// tokenctl's documented exit statuses (`tokenctl --help`, docs/tokenctl.md), shared by both executables:
///
/// - 0 `success`;
/// - 3 `loginRequired`: a sign-in is needed — nothing stored, signed out, the session ended, the sign-in declined or
///   refused;
/// - 4 `storageFailure`: the store cannot be used — the keyring is unavailable, locked, timed out or misconfigured,
///   or the file of `--insecure-storage` cannot be used;
/// - 5 `transient`: a network or server failure (the tokens were kept), or no answer in time;
/// - 6 `requestRefused`: `tokenctl request`'s resource refused the request (the body is printed);
/// - 64 `usage`: a usage error, or an endpoint, issuer, client or option that cannot work as configured;
/// - 65 `badInput`: malformed standard input, or a stored item that cannot be read;
/// - 74 `outputFailed`: standard output could not be written (``StandardStreams``), sysexits' `EX_IOERR`.
///
/// A library error's status is computed from its category (``init(_:)``), never looked up by its code: the
/// categories are the libraries' own (`isLoginRequired`, `isStorageFailure`, …, the same on every error type), so
/// `tokenctl` and an app can never classify a code differently, and a code added to a library exits as its category
/// says without a change here.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0, loginRequired = 3, storageFailure = 4, transient = 5, requestRefused = 6, usage = 64, badInput = 65
    case outputFailed = 74

    /// The status of an error of the libraries, from its category: 3 login required, 4 storage failure, 6 request
    /// refused, 65 unreadable entry, 5 transient, and 64 for a misconfiguration and anything else.
    package init(_ error: some CategorizedError) {
        self = if error.isLoginRequired {
            .loginRequired
        } else if error.isStorageFailure {
            .storageFailure
        } else if error.isRequestRefused {
            .requestRefused
        } else if error.isUnreadableEntry {
            .badInput
        } else if error.isTransient {
            .transient
        } else {
            .usage
        }
    }
}

/// An error with the categories every error type of the package has (ERRORS of issue 32): `KeyringError`,
/// `TokenAuthError` and TokenAuthSignIn's `SignInError` (whose conformance is the commands', which link that library).
/// Exactly one category holds for each error, except for programming errors, which exit as usage errors.
package protocol CategorizedError: Error {
    var isLoginRequired: Bool { get }
    var isStorageFailure: Bool { get }
    var isUnreadableEntry: Bool { get }
    var isTransient: Bool { get }
    var isMisconfiguration: Bool { get }
    /// Only `TokenAuthError` has requests that a resource refuses.
    var isRequestRefused: Bool { get }
}

extension CategorizedError {
    package var isRequestRefused: Bool { false }
}

extension TokenAuthError: CategorizedError {}

extension KeyringError: CategorizedError {}
