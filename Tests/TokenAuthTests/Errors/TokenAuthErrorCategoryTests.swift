import Testing
import TokenAuth

/// The categories of the shared error vocabulary: every code of `TokenAuthError` is in exactly one, so that an app
/// (and `tokenctl`'s exit status) can decide by category and never meets a code that none, or two, claim.
@Suite("TokenAuthError: exactly one category for every code")
struct TokenAuthErrorCategoryTests {
    /// The categories an error is in, by name.
    static func categories(of error: TokenAuthError) -> [String] {
        [
            ("isLoginRequired", error.isLoginRequired), ("isStorageFailure", error.isStorageFailure),
            ("isUnreadableEntry", error.isUnreadableEntry), ("isTransient", error.isTransient),
            ("isMisconfiguration", error.isMisconfiguration), ("isRequestRefused", error.isRequestRefused),
        ].filter(\.1).map(\.0)
    }

    @Test("each code is in exactly one category", arguments: TokenAuthError.Code.all)
    func exactlyOne(code: TokenAuthError.Code) {
        let error = TokenAuthError(code, "What happened.", fix: "What to do.")
        #expect(Self.categories(of: error).count == 1, "\(code): \(Self.categories(of: error))")
    }

    @Test("the codes the categories were decided for by issue 32 are where the vocabulary puts them")
    func decided() {
        func category(_ code: TokenAuthError.Code) -> [String] {
            Self.categories(of: TokenAuthError(code, "r", fix: "f"))
        }
        // A refresh that finds the entry gone: signed out elsewhere.
        #expect(category(.missing) == ["isLoginRequired"])
        // A refresh loop stopped for a while, and an answer that is no HTTP response: later may work.
        #expect(category(.excessiveRefresh) == ["isTransient"])
        #expect(category(.invalidResponse) == ["isTransient"])
        // The transport's limit, a client without what the request needs, a request that cannot be sent.
        #expect(category(.responseTooLarge) == ["isMisconfiguration"])
        #expect(category(.invalidClientConfiguration) == ["isMisconfiguration"])
        #expect(category(.invalidRequest) == ["isMisconfiguration"])
        // The store: its files, an answer it did not take, the lock.
        #expect(category(.storageFailed) == ["isStorageFailure"])
        #expect(category(.notStored) == ["isStorageFailure"])
        #expect(category(.lockUnavailable) == ["isStorageFailure"])
        #expect(category(.corrupt) == ["isUnreadableEntry"])
        #expect(category(.unsupportedVersion) == ["isUnreadableEntry"])
        #expect(category(.unauthorized) == ["isRequestRefused"])
    }
}
