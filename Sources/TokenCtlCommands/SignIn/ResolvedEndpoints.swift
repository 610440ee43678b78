import Foundation
import TokenAuthSignIn

/// The endpoints `tokenctl login` signs in with: those given by hand, else those of `--provider`'s entry in
/// `KnownProvider`.
struct ResolvedEndpoints {
    var issuer: URL?
    var token: URL?
    var authorization: URL?
    var deviceAuthorization: URL?
    var revocation: URL?
    /// The provider's name, for errors.
    var providerName: String?

    init(_ command: TokenCtl.Login) throws {
        issuer = command.issuer.flatMap(URL.init(string:))
        token = command.tokenURL.flatMap(URL.init(string:))
        authorization = command.authorizationURL.flatMap(URL.init(string:))
        deviceAuthorization = command.deviceAuthorizationURL.flatMap(URL.init(string:))
        revocation = command.revocationURL.flatMap(URL.init(string:))
        guard let name = command.provider else { return }
        let provider = try KnownProvider.named(name)
        providerName = provider.name
        switch provider.endpoints {
        case .issuer(let url):
            // Endpoints given by hand are for servers without discovery: with a discovering provider they are
            // refused rather than mixed with what discovery names.
            guard token == nil, authorization == nil, deviceAuthorization == nil else {
                throw Failure.usage(
                    "\(provider.name) is discovered from \(url.absoluteString): give no --token-url, "
                        + "--authorization-url or --device-authorization-url with it.")
            }
            issuer = url
        case .manual(let endpoints):
            token = token ?? endpoints.token
            authorization = authorization ?? endpoints.authorization
            deviceAuthorization = deviceAuthorization ?? endpoints.deviceAuthorization
            revocation = revocation ?? endpoints.revocation
        }
    }

    /// `url`, or a usage failure naming `flag` when neither the command line nor the provider gave it.
    func required(_ url: URL?, _ flag: String) throws -> URL {
        guard let url else {
            throw Failure.usage("\(providerName ?? "This server") has no such endpoint known here: give \(flag).")
        }
        return url
    }
}
