#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a refresh was asked for, which decides whether tokens found in the store make the request unnecessary.
enum RefreshReason: Sendable, Equatable {
    /// The token is about to expire (``AuthManager/validAuth()``): tokens that are fresh will do.
    case needed
    /// The caller asked for new tokens (``AuthManager/refresh()``): only a request will do.
    case forced
    /// A server rejected this access token (``AuthManager/refresh(rejecting:)``): any other token that is still
    /// valid will do.
    case rejected(String)

    /// Whether `auth` serves this refresh without a request, at `now`.
    func isSatisfied(by auth: Auth, at now: Date, leeway: Duration) -> Bool {
        guard auth.isLive else { return false }
        switch self {
        case .needed:
            return auth.isFresh(at: now, leeway: leeway)
        case .forced:
            return false
        case .rejected(let accessToken):
            return auth.accessToken != accessToken && auth.isValid(at: now)
        }
    }
}
