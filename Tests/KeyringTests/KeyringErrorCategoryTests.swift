@testable import Keyring
import Testing

/// The categories of `KeyringError`, as every error type of the package answers them: exactly one holds for every
/// code, and which one is fixed here, code by code (tokenctl's exit status follows from it).
@Suite("KeyringError's categories: exactly one for every code")
struct KeyringErrorCategoryTests {
    enum Category: String, CaseIterable {
        case loginRequired, storageFailure, unreadableEntry, transient, misconfiguration
    }

    /// Where each code belongs. A new code fails the test until it is placed here.
    static let expected: [KeyringError.Code: Category] = [
        .serviceUnavailable: .storageFailure, .locked: .storageFailure, .timedOut: .storageFailure,
        .waiting: .storageFailure,
        .noDefaultCollection: .storageFailure, .misconfigured: .storageFailure, .portalUnavailable: .storageFailure,
        .portalRefused: .storageFailure, .other: .storageFailure,
        .notText: .unreadableEntry,
        .notFound: .transient,
        .secretTooLarge: .misconfiguration,
    ]

    static func categories(of error: KeyringError) -> [Category] {
        let holds: [Category: Bool] = [
            .loginRequired: error.isLoginRequired, .storageFailure: error.isStorageFailure,
            .unreadableEntry: error.isUnreadableEntry, .transient: error.isTransient,
            .misconfiguration: error.isMisconfiguration,
        ]
        return Category.allCases.filter { holds[$0] == true }
    }

    @Test("every code is in exactly one category, the one it is documented in", arguments: KeyringError.Code.all)
    func exactlyOne(code: KeyringError.Code) throws {
        let expected = try #require(Self.expected[code], "\(code) is placed in no category here")
        let error = KeyringError(code, "What happened.", fix: "What to do.")
        #expect(Self.categories(of: error) == [expected], "\(code)")
    }

    @Test("the codes the test goes through are all of them, each once")
    func allCodes() {
        #expect(Set(KeyringError.Code.all).count == KeyringError.Code.all.count)
        #expect(Set(KeyringError.Code.all) == Set(Self.expected.keys))
    }

    @Test("the errors the library throws keep their code's category: a locked keyring and a timeout are storage failures, never a sign-in")
    func thrownErrors() {
        let errors: [KeyringError] = [
            .locked("prompting is disabled"), .timedOut(after: .seconds(5), nil), .serviceUnavailable(nil),
            .hostKeyringLocked(nil), .noSecretPortal(doing: "looking up", nil), .appKeyringFileDamaged("/f", "it is empty"),
        ]
        for error in errors {
            #expect(error.isStorageFailure && !error.isLoginRequired && !error.isTransient, "\(error.code): \(error)")
        }
        #expect(KeyringError.notText("/org/freedesktop/secrets/collection/login/7").isUnreadableEntry)
        #expect(KeyringError.secretTooLarge(size: 9000, limit: 8192).isMisconfiguration)
    }
}
