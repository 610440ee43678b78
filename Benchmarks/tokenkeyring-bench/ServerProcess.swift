import ChildProcesses
import Foundation
import TokenAuth
import TokenAuthURLSession

/// The `oauth-test-server` executable in a process of its own, for a figure whose server's work must not be counted
/// as the client's (figure 9): its CPU time is its own, as a real server's is on another machine.
struct ServerProcess {
    static let clientID = "bench"
    static let user = (name: "alice", password: "bench-password")

    let process: ChildProcess
    let baseURL: URL

    var tokenEndpoint: URL { baseURL.appendingPathComponent("token") }
    var resourceURL: URL { baseURL.appendingPathComponent("resource") }

    /// Starts it on a free loopback port, with DPoP advertised and a public client, and waits for its
    /// `listening on URL` line.
    static func start(_ executable: String) async throws -> ServerProcess {
        let process = try ChildProcess.start(
            executable,
            ["--host", "127.0.0.1", "--port", "0", "--client-id", clientID, "--user", "\(user.name):\(user.password)",
             "--dpop", "--expires-in", "86400", "--log-level", "error"],
            timeout: .seconds(3600))
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            if let line = process.stdoutSoFar.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                let url = URL(string: String(line.dropFirst("listening on ".count)))
            {
                return ServerProcess(process: process, baseURL: url)
            }
            if process.isFinished { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.pid, SIGKILL)
        _ = await process.finish()
        throw Failure(description: "oauth-test-server did not say where it listens: \(process.stderrSoFar)")
    }

    /// Tokens for ``user`` by the password grant: bound to `key` with a proof from `dpop`'s provider, or bearer.
    func tokens(transport: any HTTPTransport, dpop: DPoP?, key: ProofKey?) async throws -> Auth {
        let client = TokenEndpointClient(
            client: OAuthClient(tokenEndpoint: tokenEndpoint, clientID: Self.clientID), transport: transport, dpop: dpop)
        let response = try await client.password(
            username: Self.user.name, password: Self.user.password, scope: nil, proofKey: key)
        return response.auth(updating: key.map { Auth(accessToken: "", proofKey: $0) })
    }

    /// Stops it (SIGTERM) and waits for it.
    func stop() async {
        kill(process.pid, SIGTERM)
        _ = await process.finish()
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
