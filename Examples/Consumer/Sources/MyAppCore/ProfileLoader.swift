// snippet.logic
import Foundation
import TokenAuth

/// The user's profile, as the app's API answers `GET /me`.
public struct Profile: Decodable, Sendable, Equatable {
    public let name: String

    public init(name: String) { self.name = name }
}

/// What the profile window shows.
public enum ProfileScreen: Sendable, Equatable {
    case profile(Profile)
    /// The provider no longer accepts the session: show the sign-in screen, saying why.
    case signInRequired(reason: String)
    /// Nothing is lost: the network or the provider failed for now. Offer to try again.
    case tryAgain(after: Duration?)
}

/// The app's logic around its session: it knows `TokenAuth` alone — an `AuthorizedClient`, its errors — so that it,
/// and its tests, build without libsecret.
public struct ProfileLoader: Sendable {
    let api: AuthorizedClient
    let url: URL

    public init(api: AuthorizedClient, url: URL) {
        self.api = api
        self.url = url
    }

    /// Loads the profile, and says what to show when that fails.
    public func load() async throws -> ProfileScreen {
        do {
            return .profile(try await api.load(Profile.self, from: url))
        } catch let error as TokenAuthError where error.isLoginRequired {
            return .signInRequired(reason: error.reason)
        } catch let error as TokenAuthError where error.isTransient {
            return .tryAgain(after: error.retryAfter)
        }
    }
}
// snippet.end
