#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension HTTPResponse {
    /// Where this 3xx response points, for an error message that tells the user which URL to configure: the
    /// `Location` resolved against `requestURL`, without user info, query or fragment (they may carry secrets
    /// and are not part of an endpoint's address), with `secrets` redacted, in printable ASCII and at most 300
    /// characters. `nil` when there is no `Location` or it is not a URL.
    func redirectLocation(from requestURL: URL, secrets: [String] = []) -> String? {
        guard let location = headerFields[.location],
            let target = URL(string: location, relativeTo: requestURL)?.absoluteURL,
            var components = URLComponents(url: target, resolvingAgainstBaseURL: false),
            components.scheme != nil, components.host != nil
        else { return nil }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        guard let text = components.string else { return nil }
        return TokenAuthError.sanitize(text, secrets: secrets, limit: 300)
    }
}
