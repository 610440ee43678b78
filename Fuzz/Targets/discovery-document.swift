// libFuzzer target: authorization server metadata documents (RFC 8414 §2, OpenID Connect Discovery 1.0 §3), as a
// well-known URL answers them.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/discovery-document, findings in Fuzz/Crashes/discovery-document.
// fuzz-dictionary: discovery
import Foundation
import HTTPTypes
@testable import TokenAuth
@testable import TokenAuthSignIn

private let documentURL = URL(string: "https://issuer.example/.well-known/openid-configuration")!
private let fixedIssuer = "https://issuer.example"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: bytes, count: count))
    // As Discovery asks: for a fixed issuer, and for the issuer the document names (as a URL's absoluteString, the
    // way Discovery compares it), so that documents of any issuer get past the issuer check.
    var issuers = [fixedIssuer]
    if let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any],
        let named = object["issuer"] as? String, let asked = URL(string: named)?.absoluteString, asked != fixedIssuer
    {
        issuers.append(asked)
    }
    for issuer in issuers {
        check(body, issuer: issuer)
    }
    return 0
}

private func check(_ body: Data, issuer: String) {
    let metadata: AuthorizationServerMetadata
    do {
        metadata = try AuthorizationServerMetadata.decode(body, from: documentURL, expectedIssuer: issuer)
    } catch {
        // Typed throws: a SignInError by construction. It must be one of the document's own failures.
        let expected: [SignInError.Code] = [
            .responseTooLarge, .metadataNotJSON, .issuerMismatch, .missingEndpoint, .insecureEndpoint,
        ]
        precondition(expected.contains(error.code), "decode threw \(error.code)")
        precondition(!error.isTransient, "a document's own failure told as transient")
        return
    }
    precondition(!metadata.issuer.isEmpty && metadata.issuer == issuer, "the issuer is not the one asked for")
    precondition(body.count <= AuthorizationServerMetadata.maximumSize, "a document over maximumSize accepted")
    let endpoints: [URL?] = [
        metadata.tokenEndpoint, metadata.authorizationEndpoint, metadata.revocationEndpoint,
        metadata.deviceAuthorizationEndpoint, metadata.userinfoEndpoint, metadata.jwksURI,
    ]
    for case let endpoint? in endpoints {
        precondition(keepsCredentialsOffTheNetwork(endpoint), "an endpoint that exposes credentials: \(endpoint)")
    }
    // What is built from a document keeps its issuer exactly: a client stored with it, and the id_token check.
    let client = metadata.client(id: "fuzz-client")
    precondition(client.tokenEndpoint == metadata.tokenEndpoint, "the client lost the token endpoint")
    precondition(client.issuer?.absoluteString == metadata.issuer, "the stored client's issuer differs from the document's")
    precondition(client.jwksURI == metadata.jwksURI && client.userinfoEndpoint == metadata.userinfoEndpoint)
    if metadata.jwksURI != nil {
        do {
            let verifier = try IDTokenVerifier(metadata: metadata, clientID: "fuzz-client", transport: NoNetwork())
            precondition(verifier.issuer.absoluteString == metadata.issuer, "the verifier checks another issuer")
        } catch {
            preconditionFailure("no id_token verifier for a document with a jwks_uri: \(error)")
        }
    }
    if let endpoint = try? BrowserSignIn.authorizationEndpoint(of: metadata) {
        precondition(endpoint == metadata.authorizationEndpoint)
        let methods = metadata.codeChallengeMethodsSupported
        precondition(methods.isEmpty || methods.contains("S256"), "a browser sign-in without S256")
    }
    let device = try? DeviceAuthorization(metadata: metadata, clientID: "fuzz-client", transport: NoNetwork())
    precondition((device != nil) == (metadata.deviceAuthorizationEndpoint != nil))
}

/// `https` with a host, or `http` to a loopback host, read from the URL's text rather than through
/// `canCarryCredentials`, which the parser uses: the host as written, percent-encoding and all.
private func keepsCredentialsOffTheNetwork(_ url: URL) -> Bool {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
        let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
    else { return false }
    switch components.scheme?.lowercased() {
    case "https":
        return true
    case "http":
        if host.contains("%") { return false }
        if host == "localhost" || host == "localhost." { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }), octets[0] == "127" { return true }
        return host.contains(":") && LoopbackHost.contains(host)  // IPv6: ::1 and ::ffff:127.x.y.z, in any spelling
    default:
        return false
    }
}

/// A transport for the types built from the document, which must not send anything while being built.
private struct NoNetwork: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        preconditionFailure("a request while building from a document")
    }
}
