import ChildProcesses
import Foundation
import HTTPTypes
import OAuthTestServer
import TokenAuthURLSession

/// Runs figure 8's rounds (see ``SessionFaults``): import, `tokenctl token` with one fault, recovery, and the check.
struct FaultRunner: Sendable {
    let tokenctl: String
    let server: OAuthTestServer
    let provider: PrivateBusProcess
    let service: String
    /// Holds `state` (`XDG_STATE_HOME`, where the file store is) and `config` (`XDG_CONFIG_HOME`) of every call.
    let home: URL
    let transport: URLSessionHTTPTransport

    /// Every `tokenctl` of the figure uses the figure's own keyring, state and configuration, never the user's.
    private var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": provider.address,
            "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
        ]
    }

    /// The file store's directory, made read-only by ``SessionFault/storeReadOnly``.
    private var storeDirectory: String { home.appendingPathComponent("state/tokenkeyring").path }

    func run(_ round: FaultRound) async throws -> RoundOutcome {
        let started = ContinuousClock.now
        let account = "round-\(round.number)"
        try await importExpiredItem(account: account, fileStore: round.fault.usesFileStore)
        let before = server.stats
        if round.fault == .answerLost { server.updateFaults { $0.lostAnswers = 1 } }
        // The read-only fault needs the call in a mount namespace of its own: `unshare -m` runs tokenctl in one
        // (it execs, so the process is tokenctl), where a bind mount changes the store for that call only.
        let command = round.fault.usesFileStore
            ? ("/usr/bin/unshare", ["-m", tokenctl] + item("token", account)) : (tokenctl, item("token", account))
        let running = try ChildProcess.start(command.0, command.1, environment: environment, timeout: .seconds(60))
        let phase: FaultPhase
        do {
            phase = try await inject(round, into: running, since: before)
        } catch {
            _ = await running.finish()
            throw error
        }
        let faulted = await running.finish()
        server.updateFaults { $0.lostAnswers = 0 }
        let lost = try await recover(round, account: account)
        return RoundOutcome(
            round: round, phase: phase,
            faultedExit: faulted.signal.map { "signal \($0)" } ?? "exit \(faulted.status)",
            lost: lost, reuseDetections: server.stats.reuseDetections - before.reuseDetections,
            faultedSeconds: faulted.seconds, seconds: (ContinuousClock.now - started).seconds)
    }

    /// Waits for the round's moment, then injects its fault; returns where the call was at that moment.
    private func inject(
        _ round: FaultRound, into running: ChildProcess, since before: OAuthTestServer.Stats
    ) async throws -> FaultPhase {
        // The server's fault was set before the start; it lands at the server, after the rotation.
        if round.fault == .answerLost { return .atServer }
        try await Task.sleep(for: round.delay)
        let phase = phase(of: running, since: before)
        switch round.fault {
        case .sigterm, .sighup, .sigkill:
            // Our own child, by its id, and only while it has not exited.
            if let signal = round.fault.signal, running.isRunning { kill(running.pid, signal) }
        case .providerStopped:
            try await provider.send("stop")
            try await Task.sleep(for: round.pause)
            try await provider.send("cont")
        case .providerKilled:
            try await provider.send("kill")
        case .storeReadOnly:
            guard running.isRunning else { return .callOver }
            let mounted = try await ChildProcess.run(
                "/usr/bin/nsenter",
                ["-t", "\(running.pid)", "-m", "mount", "--bind", "-o", "ro", storeDirectory, storeDirectory],
                timeout: .seconds(30))
            if mounted.status != 0 {
                // A call that ended meanwhile took its namespace with it; anything else is the figure's failure.
                guard !running.isRunning else { throw BenchFailure("nsenter … mount --bind -o ro: \(mounted.stderr)") }
                return .callOver
            }
        case .answerLost:
            break
        }
        return phase
    }

    /// Where the call is: its process exited, or how far its grant got at the server.
    private func phase(of running: ChildProcess, since before: OAuthTestServer.Stats) -> FaultPhase {
        guard running.isRunning else { return .callOver }
        let now = server.stats
        if now.refreshGrants == before.refreshGrants { return .beforeGrant }
        if now.successfulRefreshes == before.successfulRefreshes { return .atServer }
        return .afterAnswer
    }

    /// Recovers as a person would — a killed keyring started again (locked, as D-Bus activation would start it) and
    /// unlocked; a stopped one has been continued; the read-only mount ended with the call's namespace — and asks
    /// for a token once more. Returns why the session is lost, or `nil` when the token printed works at the server.
    private func recover(_ round: FaultRound, account: String) async throws -> String? {
        var result: ChildResult
        if round.fault == .providerKilled {
            try await provider.send("start-locked")
            result = try await call(item("token", account))
            try await provider.send("unlock")
            // Exit 4: the keyring is locked — a kept answer, if any, waits for it. Once unlocked, again.
            if result.status == 4 { result = try await call(item("token", account)) }
        } else {
            result = try await call(item("token", account))
        }
        let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty else {
            let reason = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
            return "tokenctl token exit \(result.status): \(reason)"
        }
        var request = HTTPRequest(method: .get, url: server.resourceURL)
        request.headerFields[.authorization] = "Bearer \(token)"
        let status = try await transport.send(request, body: nil).0.status.code
        return status == 200 ? nil : "the token printed is refused by the server (HTTP \(status)): its grant was revoked"
    }

    /// A fresh item that the server really issued, whose access token expired a minute ago.
    private func importExpiredItem(account: String, fileStore: Bool) async throws {
        let issued = server.issueTokens(clientID: LoopbackOAuth.clientID, subject: LoopbackOAuth.user)
        let bundle: [String: Any] = [
            "version": 1, "access_token": issued.accessToken, "refresh_token": issued.refreshToken ?? "",
            "expires_at": Date(timeIntervalSinceNow: -60).formatted(.iso8601),
            "token_endpoint": server.tokenEndpoint.absoluteString, "client_id": LoopbackOAuth.clientID,
        ]
        let data = try JSONSerialization.data(withJSONObject: bundle)
        let result = try await call(item("import", account) + (fileStore ? ["--insecure-storage"] : []), stdin: data)
        guard result.status == 0 else { throw BenchFailure("tokenctl import: exit \(result.status): \(result.stderr)") }
    }

    private func item(_ command: String, _ account: String) -> [String] {
        [command, "--service", service, "--account", account, "--no-prompt"]
    }

    private func call(_ arguments: [String], stdin: Data? = nil) async throws -> ChildResult {
        try await ChildProcess.run(tokenctl, arguments, stdin: stdin, environment: environment, timeout: .seconds(60))
    }
}
