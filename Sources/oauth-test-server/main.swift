// oauth-test-server: runs OAuthTestServer until SIGTERM or SIGINT.
//
// Prints exactly one line to stdout, `listening on http://127.0.0.1:PORT`, once the socket is bound; everything
// else goes to stderr. Exit codes: 0 after a signal, 1 when the server cannot start, 2 for a usage error.

import Dispatch
import Foundation
import OAuthTestServer

let usage = """
    usage: oauth-test-server [--host ADDRESS] [--port N]
                             [--client-id ID [--client-secret SECRET] [--dpop-required]]...
                             [--user NAME:PASSWORD]... [--expires-in SECONDS]
                             [--expires-in-style number|string|omitted] [--token-type TYPE] [--no-rotation]
                             [--dpop] [--dpop-nonce] [--dpop-refusal-status STATUS]
                             [--log-level trace|debug|info|notice|warning|error|critical] [--approve-as NAME]

    Defaults: --host 127.0.0.1 --port 0 (any free port) --client-id test-client (public)
              --user alice:wonderland --expires-in 3600.
    A --client-secret belongs to the --client-id before it. Faults and counters: see /_admin/ on the server.
    The authorization endpoint (/authorize) has no login page: it approves every valid request as --approve-as
    (default ada).

    Device flow (RFC 8628): POST /device_authorization issues a code; its verification_uri is the page /device,
    where a person enters the code (verification_uri_complete fills it in), names the user to sign in as
    (default: --approve-as) and presses Approve or Deny. Scripts decide a code without the page:
      curl -d '{"user_code":"WDJB-MJHT","approve":true,"subject":"ada"}' http://127.0.0.1:PORT/_admin/device/decide
    (404 for an unknown code; {"user_code":"…","expire":true} makes the code expire now), and list the codes waiting
    for a decision with GET /_admin/device/pending.

    A grant at the server, held there while a test acts: POST /_admin/token-answers/hold makes every token request
    from then on wait before it is looked at, GET /_admin/token-answers says how many wait ({"held": N}), and
    POST /_admin/token-answers/release lets them answer.

    DPoP (RFC 9449): a token request with a valid DPoP proof (ES256) gets tokens bound to its key (token_type DPoP),
    which the resource then accepts only as "Authorization: DPoP TOKEN" with a proof of that key. --dpop lists
    ES256 in the metadata's dpop_signing_alg_values_supported (proofs are accepted without it); --dpop-required
    makes the --client-id before it send a proof with every token request; --dpop-nonce makes the token endpoint
    and the resource demand the nonce of their DPoP-Nonce header (use_dpop_nonce), which
    POST /_admin/dpop/rotate-nonce changes; --dpop-refusal-status sets the token endpoint's status for
    invalid_dpop_proof (default 400; some servers answer 403). POST /_admin/faults with
    {"emptyDPoPUnauthorizedAnswers": N} makes the next N DPoP resource requests answer a bare 401.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("oauth-test-server: \(message)\n\n\(usage)\n".utf8))
    exit(2)
}

func parseConfiguration(
    _ arguments: [String]
) -> (OAuthTestServer.Configuration, OAuthTestServer.LogLevel, approveAs: String?) {
    var configuration = OAuthTestServer.Configuration()
    var clients: [OAuthTestServer.RegisteredClient] = []
    var users: [String: String] = [:]
    var logLevel = OAuthTestServer.LogLevel.warning
    var approveAs: String?
    var remaining = arguments[...]

    func value(for option: String) -> String {
        guard let value = remaining.popFirst() else { fail("\(option) needs a value") }
        return value
    }

    while let option = remaining.popFirst() {
        switch option {
        case "--host":
            configuration.host = value(for: option)
        case "--port":
            guard let port = Int(value(for: option)), (0...65535).contains(port) else { fail("--port needs 0…65535") }
            configuration.port = port
        case "--client-id":
            clients.append(OAuthTestServer.RegisteredClient(id: value(for: option)))
        case "--client-secret":
            guard !clients.isEmpty else { fail("--client-secret must follow a --client-id") }
            clients[clients.count - 1].secret = value(for: option)
        case "--dpop-required":
            guard !clients.isEmpty else { fail("--dpop-required must follow a --client-id") }
            clients[clients.count - 1].requiresDPoP = true
        case "--dpop":
            configuration.advertisesDPoP = true
        case "--dpop-nonce":
            configuration.dpopNonces = true
        case "--dpop-refusal-status":
            guard let status = Int(value(for: option)), (400...499).contains(status) else {
                fail("--dpop-refusal-status needs a 4xx status")
            }
            configuration.dpopProofRefusalStatus = status
        case "--user":
            let pair = value(for: option)
            guard let colon = pair.firstIndex(of: ":") else { fail("--user needs NAME:PASSWORD") }
            users[String(pair[..<colon])] = String(pair[pair.index(after: colon)...])
        case "--expires-in":
            guard let seconds = Int(value(for: option)), seconds >= 0 else { fail("--expires-in needs whole seconds") }
            configuration.accessTokenLifetime = .seconds(seconds)
        case "--expires-in-style":
            guard let style = OAuthTestServer.ExpiresInStyle(rawValue: value(for: option)) else {
                fail("--expires-in-style is number, string or omitted")
            }
            configuration.expiresInStyle = style
        case "--token-type":
            configuration.tokenType = value(for: option)
        case "--no-rotation":
            configuration.rotateRefreshTokens = false
        case "--log-level":
            guard let level = OAuthTestServer.LogLevel(rawValue: value(for: option)) else { fail("unknown log level") }
            logLevel = level
        case "--approve-as":
            approveAs = value(for: option)
        case "--help", "-h":
            print(usage)
            exit(0)
        default:
            fail("unknown option \(option)")
        }
    }
    if !clients.isEmpty { configuration.clients = clients }
    if !users.isEmpty { configuration.users = users }
    return (configuration, logLevel, approveAs)
}

let (configuration, logLevel, approveAs) = parseConfiguration(Array(CommandLine.arguments.dropFirst()))

// Signals are turned into stream elements, so the server can shut down cleanly instead of dying mid-response.
let (signals, signalContinuation) = AsyncStream<Int32>.makeStream()
let signalQueue = DispatchQueue(label: "oauth-test-server.signals")
let signalSources = [SIGTERM, SIGINT].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
    source.setEventHandler { @Sendable in signalContinuation.yield(number) }
    source.resume()
    return source
}

let server: OAuthTestServer
do {
    server = try await OAuthTestServer.start(configuration, logLevel: logLevel)
} catch {
    FileHandle.standardError.write(Data("oauth-test-server: cannot start: \(error)\n".utf8))
    exit(1)
}
if let approveAs { server.browserFlow.outcome = .approve(subject: approveAs) }
// Written straight to the file descriptor: no stdio buffer can hold the line back from a reading parent.
FileHandle.standardOutput.write(Data("listening on \(server.baseURL.absoluteString)\n".utf8))

for await number in signals {
    FileHandle.standardError.write(Data("oauth-test-server: signal \(number), shutting down\n".utf8))
    break
}
await server.shutdown()
signalSources.forEach { $0.cancel() }
