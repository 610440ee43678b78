import Testing
import TokenAuthSignIn

/// The categories of the shared error vocabulary on `SignInError`: exactly one for every code — of a listener on an
/// ephemeral port (transient) and on a fixed one (a misconfiguration) alike — and never the store's, since signing in
/// stores nothing itself.
@Suite("SignInError: exactly one category for every code")
struct SignInErrorCategoryTests {
    static func categories(of error: SignInError) -> [String] {
        [
            ("isLoginRequired", error.isLoginRequired), ("isStorageFailure", error.isStorageFailure),
            ("isUnreadableEntry", error.isUnreadableEntry), ("isTransient", error.isTransient),
            ("isMisconfiguration", error.isMisconfiguration),
        ].filter(\.1).map(\.0)
    }

    /// Every code, as the library makes it, and with the transience a listener's port decides.
    static let errors: [SignInError] = SignInError.Code.all.flatMap { code in
        [nil, true, false].map { SignInError(code, "What happened.", fix: "What to do.", transient: $0) }
    }

    @Test("each code is in exactly one category, never the store's", arguments: errors)
    func exactlyOne(error: SignInError) {
        let categories = Self.categories(of: error)
        #expect(categories.count == 1, "\(error.code): \(categories)")
        #expect(!error.isStorageFailure && !error.isUnreadableEntry)
    }

    @Test("a refusal is a sign-in to make again; a listener's port decides between transient and misconfigured")
    func refusal() {
        let denied = SignInError(.denied, "The user declined.", fix: "Sign in again.")
        #expect(Self.categories(of: denied) == ["isLoginRequired"])
        let fixedPort = SignInError(.listenerUnavailable, "Port taken.", fix: "Choose another.", transient: false)
        #expect(Self.categories(of: fixedPort) == ["isMisconfiguration"])
        let ephemeral = SignInError(.listenerUnavailable, "No port.", fix: "Retry.", transient: true)
        #expect(Self.categories(of: ephemeral) == ["isTransient"])
    }
}
