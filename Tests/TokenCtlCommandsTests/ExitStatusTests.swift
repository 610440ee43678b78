@testable import Keyring
import Testing
import TokenAuth
import TokenAuthSignIn
import TokenCtlBase
import TokenCtlCommands

/// tokenctl's exit status is computed from the error's category, so that it can never classify a code otherwise than
/// the library does. For every code of every error type, the status expected is derived here from the category the
/// library puts it in, by the table of the shared error vocabulary, and compared with what tokenctl computes.
/// `ExitStatus` is the base's; these tests are the commands', whose target gives `SignInError` its categories.
@Suite("exit statuses from the categories, for every code of every error type")
struct ExitStatusTests {
    /// The vocabulary's table: each category and the status it exits with, in the order they are asked.
    static func expected(
        loginRequired: Bool, storageFailure: Bool, requestRefused: Bool = false, unreadableEntry: Bool,
        transient: Bool, misconfiguration: Bool
    ) -> Int32? {
        let statuses: [(Bool, Int32)] = [
            (loginRequired, 3), (storageFailure, 4), (requestRefused, 6), (unreadableEntry, 65), (transient, 5),
            (misconfiguration, 64),
        ]
        let held = statuses.filter(\.0)
        // Exactly one category holds (the libraries' own tests check it for each code): else no status is expected.
        return held.count == 1 ? held[0].1 : nil
    }

    @Test("TokenAuthError", arguments: TokenAuthError.Code.all)
    func tokenAuth(code: TokenAuthError.Code) throws {
        let error = TokenAuthError(code, "r", fix: "f")
        let status = try #require(Self.expected(
            loginRequired: error.isLoginRequired, storageFailure: error.isStorageFailure,
            requestRefused: error.isRequestRefused, unreadableEntry: error.isUnreadableEntry,
            transient: error.isTransient, misconfiguration: error.isMisconfiguration))
        #expect(ExitStatus(error).rawValue == status, "\(code)")
    }

    @Test("SignInError, with the transience a listener's port decides", arguments: SignInError.Code.all)
    func signIn(code: SignInError.Code) throws {
        for transient in [nil, true, false] {
            let error = SignInError(code, "r", fix: "f", transient: transient)
            let status = try #require(Self.expected(
                loginRequired: error.isLoginRequired, storageFailure: error.isStorageFailure,
                unreadableEntry: error.isUnreadableEntry, transient: error.isTransient,
                misconfiguration: error.isMisconfiguration))
            #expect(ExitStatus(error).rawValue == status, "\(code), transient: \(String(describing: transient))")
        }
    }

    @Test("KeyringError", arguments: KeyringError.Code.all)
    func keyring(code: KeyringError.Code) throws {
        let error = KeyringError(code, "What happened.", fix: "What to do.")
        let status = try #require(Self.expected(
            loginRequired: error.isLoginRequired, storageFailure: error.isStorageFailure,
            unreadableEntry: error.isUnreadableEntry, transient: error.isTransient,
            misconfiguration: error.isMisconfiguration))
        #expect(ExitStatus(error).rawValue == status, "\(code)")
    }

    @Test("the statuses are the documented ones")
    func documented() {
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 3, 4, 5, 6, 64, 65, 74])
    }
}
