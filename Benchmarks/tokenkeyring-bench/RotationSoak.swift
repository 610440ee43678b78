import ChildProcesses
import Foundation
import HTTPTypes
import Keyring
import OAuthTestServer
import Synchronization
import TokenAuth
import TokenAuthURLSession
import TokenAuthKeyring

/// Figure 7: one session shared by a long-lived process and many short-lived ones, over many rotations.
///
/// A server of its own issues access tokens that live 2 s, rotates refresh tokens and revokes the family when a
/// retired one comes back. This process holds an `AuthManager` for the keyring item for the whole run and sends
/// requests one after another; `--soak-processes` loops start `tokenctl request` processes on the same item; every
/// tenth rotation `tokenctl login --tokens-stdin` signs in as the other of two accounts. It runs until the server has
/// answered `--soak-rotations` refreshes. Counted at the server: every refresh grant was needed (none presented a
/// refresh token whose access token was still fresh), none reused a rotated token, and after each sign-in the item
/// held the account just signed in.
struct RotationSoak {
    let options: Options
    let keyring: Keyring
    let service: String
    static let lifetime = Duration.seconds(2)

    func run() async -> FigureReport {
        var report = FigureReport(
            id: 7,
            title: "Rotation soak: 1 long-lived process + \(options.soakProcesses) short-lived ones, "
                + "\(options.soakRotations) rotations of 2 s access tokens")
        guard let tokenctl = report.requireTokenctl(options) else { return report }
        let server: OAuthTestServer
        do {
            server = try await OAuthTestServer.start(.init(host: "127.0.0.1", accessTokenLifetime: Self.lifetime))
        } catch {
            report.skipped = "stopped: could not start the OAuth server: \(error)"
            return report
        }
        let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: LoopbackOAuth.clientID)
        let store = KeyringAuthStore(service: service, account: "shared", client: client, keyring: keyring)
        let tally = Tally()
        let started = ContinuousClock.now
        do {
            try await signIn(as: "alice", server: server, tokenctl: tokenctl, tally: tally)
            // Tokens that live 2 s need a refresh every second: the loop guard's default (5 in 30 s) is for tokens
            // that live minutes or hours.
            let manager = try await AuthManager.forKeyringItem(
                service: service, account: "shared", keyring: keyring, transport: URLSessionHTTPTransport(),
                configuration: .init(refreshLimit: 100, refreshWindow: .seconds(30)))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await longLived(manager, server: server, tally: tally) }
                for _ in 0..<options.soakProcesses {
                    group.addTask { try await shortLived(server: server, tokenctl: tokenctl, tally: tally) }
                }
                group.addTask { try await signIns(server: server, tokenctl: tokenctl, tally: tally) }
                try await group.waitForAll()
            }
        } catch {
            report.skipped = "stopped: \(error)"
        }
        let seconds = (ContinuousClock.now - started).timeInterval
        let stats = server.stats
        _ = try? await keyring.delete(store.attributes)
        await server.shutdown()

        let counts = tally.snapshot
        report.add("duration", .seconds, [seconds])
        report.add("refresh grants", .count, [Double(stats.refreshGrants)])
        report.add("rotations (successful refreshes)", .count, [Double(stats.successfulRefreshes)])
        report.add("early refreshes (the token was still fresh)", .count, [Double(stats.earlyRefreshes)])
        report.add("reuse detections", .count, [Double(stats.reuseDetections)])
        report.add("sign-ins", .count, [Double(counts.signIns)])
        report.add("lost sign-ins", .count, [Double(counts.lostSignIns)])
        report.add("requests of the long-lived process", .count, [Double(counts.longLivedRequests)])
        report.add("tokenctl processes", .count, [Double(counts.processes)])
        report.target(
            "refresh grants", goal: "= rotations needed: every grant succeeded, none early",
            value: "\(stats.refreshGrants) grants, \(stats.successfulRefreshes) rotations, \(stats.earlyRefreshes) early",
            met: stats.refreshGrants == stats.successfulRefreshes && stats.earlyRefreshes == 0)
        report.target("reuse detections", goal: "0", value: "\(stats.reuseDetections)", met: stats.reuseDetections == 0)
        report.target("lost sign-ins", goal: "0", value: "\(counts.lostSignIns)", met: counts.lostSignIns == 0)
        report.target(
            "failed requests and processes", goal: "0", value: "\(counts.failures)", met: counts.failures == 0)
        if let example = counts.example { report.notes.append("first failure: \(example)") }
        report.notes.append(
            "Early: a refresh grant presenting the current refresh token less than a quarter of the token's life after "
                + "it was issued (a client refreshes at half). Rotations needed: one per half-life in use, about "
                + "\(Format.number((seconds / (Self.lifetime.timeInterval / 2)).rounded())) over this run.")
        return report
    }

    /// Whether the run is over: the server answered enough refreshes, or something failed.
    private func done(_ server: OAuthTestServer, _ tally: Tally) -> Bool {
        server.stats.successfulRefreshes >= options.soakRotations || tally.snapshot.failures > 0
    }

    private func longLived(_ manager: AuthManager, server: OAuthTestServer, tally: Tally) async {
        let client = AuthorizedClient(manager: manager, transport: URLSessionHTTPTransport())
        while !done(server, tally) {
            do {
                let (response, _) = try await client.send(HTTPRequest(method: .get, url: server.resourceURL))
                tally.record(longLived: response.status.kind == .successful ? nil : "HTTP \(response.status.code)")
            } catch {
                tally.record(longLived: "long-lived process: \(error)")
            }
        }
    }

    private func shortLived(server: OAuthTestServer, tokenctl: String, tally: Tally) async throws {
        let arguments = ["request", "--service", service, "--account", "shared", "--no-prompt", server.resourceURL.absoluteString]
        while !done(server, tally) {
            let result = try await ChildProcess.run(tokenctl, arguments, timeout: .seconds(60))
            tally.record(process: result.status == 0 ? nil : "tokenctl request exit \(result.status): \(result.stderr)")
        }
    }

    /// Every tenth rotation, a sign-in as the other account; afterwards the item must hold that account's tokens.
    private func signIns(server: OAuthTestServer, tokenctl: String, tally: Tally) async throws {
        var next = 10, subject = "bob"
        while !done(server, tally) {
            if server.stats.successfulRefreshes >= next {
                try await signIn(as: subject, server: server, tokenctl: tokenctl, tally: tally)
                subject = subject == "bob" ? "alice" : "bob"
                next += 10
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func signIn(as subject: String, server: OAuthTestServer, tokenctl: String, tally: Tally) async throws {
        let issued = server.issueTokens(clientID: LoopbackOAuth.clientID, subject: subject)
        let body = #"{"access_token":"\#(issued.accessToken)","refresh_token":"\#(issued.refreshToken ?? "")","#
            + #""token_type":"Bearer","expires_in":\#(Self.lifetime.components.seconds)}"#
        let result = try await ChildProcess.run(
            tokenctl,
            ["login", "--service", service, "--account", "shared", "--no-prompt", "--token-url",
             server.tokenEndpoint.absoluteString, "--client-id", LoopbackOAuth.clientID, "--tokens-stdin"],
            stdin: Data(body.utf8), timeout: .seconds(120))
        let stored = try await KeyringAuthStore(service: service, account: "shared", keyring: keyring).load()
        let holder = stored?.refreshToken.flatMap { server.subject(ofToken: $0) }
        tally.recordSignIn(
            failure: result.status == 0 ? nil : "tokenctl login exit \(result.status): \(result.stderr)",
            lost: holder != subject)
    }

    /// What the run saw, from every task.
    final class Tally: Sendable {
        struct Counts {
            var longLivedRequests = 0, processes = 0, signIns = 0, lostSignIns = 0, failures = 0
            var example: String?
        }

        private let counts = Mutex(Counts())
        var snapshot: Counts { counts.withLock { $0 } }

        func record(longLived failure: String?) {
            counts.withLock { $0.longLivedRequests += 1; Self.note(failure, in: &$0) }
        }

        func record(process failure: String?) {
            counts.withLock { $0.processes += 1; Self.note(failure, in: &$0) }
        }

        func recordSignIn(failure: String?, lost: Bool) {
            counts.withLock {
                $0.signIns += 1
                if lost { $0.lostSignIns += 1 }
                Self.note(failure, in: &$0)
            }
        }

        private static func note(_ failure: String?, in counts: inout Counts) {
            guard let failure else { return }
            counts.failures += 1
            counts.example = counts.example ?? failure
        }
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
