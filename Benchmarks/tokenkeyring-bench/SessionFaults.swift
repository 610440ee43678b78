import ChildProcesses
import Foundation
import OAuthTestServer
import TokenAuthURLSession

/// Figure 8: a session survives every fault between spending a refresh token and storing its successor (issue 30).
///
/// A server of its own rotates refresh tokens, revokes the whole grant when a retired one comes back, and answers
/// each grant after 200 ms. Each of `--fault-rounds` rounds imports a fresh expired item that server issued, starts
/// `tokenctl token`, and at a random moment injects one fault (``SessionFault``): SIGTERM, SIGHUP or SIGKILL of that
/// `tokenctl`; its Secret Service stopped for 1-6 s, or killed and started again locked; the file store read-only for
/// that call; or an answer the server sent that never reached the machine. Then it recovers as a person would (the
/// keyring continued or unlocked, the store writable again) and runs `tokenctl token` once more: the session is lost
/// when that prints no token the server accepts. Counted per kind: rounds, sessions lost, and reuse detections at the
/// server. The keyring is a gnome-keyring of the figure's own on a private bus (`scripts/lib/private-provider`), the
/// file store a temporary `XDG_STATE_HOME`: the user's keyring and files are never touched. The figure reports; it
/// asserts nothing.
struct SessionFaults {
    let options: Options
    let service: String
    /// How long the server takes to answer a grant: the window a fault can land in.
    static let latency = Duration.milliseconds(200)
    /// The latest moment of a fault after the start of `tokenctl token`: past the answer and its store on this
    /// machine, so that some faults land after the call, where they must change nothing.
    static let latest = Duration.milliseconds(400)

    func run() async -> FigureReport {
        var report = FigureReport(
            id: 8,
            title: "Faults in the refresh window: \(options.faultRounds) rounds, seed \(options.faultSeed), "
                + "grants answered after \(Format.number(Self.latency.milliseconds)) ms")
        guard let tokenctl = report.requireTokenctl(options) else { return report }
        guard let script = options.privateProvider else {
            report.skipped = "no --private-provider PATH (scripts/lib/private-provider); run it through scripts/bench"
            return report
        }
        var kinds = SessionFault.allCases
        if let reason = await Self.mountNamespacesUnavailable() {
            kinds.removeAll { $0 == .storeReadOnly }
            report.notes.append("\(SessionFault.storeReadOnly.title) left out: \(reason)")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tokenkeyring-bench-faults-\(UUID())")
        let server: OAuthTestServer
        let provider: PrivateBusProcess
        do {
            for directory in ["state", "config"] {
                try FileManager.default.createDirectory(
                    at: home.appendingPathComponent(directory), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: home.path)
            server = try await OAuthTestServer.start(.init(host: "127.0.0.1"))
            server.updateFaults { $0.tokenLatencyMilliseconds = Int(Self.latency.milliseconds) }
            do {
                provider = try await PrivateBusProcess.start(URL(fileURLWithPath: script), ["gnome-keyring"], startLimit: .seconds(120))
            } catch {
                await server.shutdown()
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(at: home)
            report.skipped = "stopped: \(error)"
            return report
        }

        let runner = FaultRunner(
            tokenctl: tokenctl, server: server, provider: provider, service: service, home: home,
            transport: URLSessionHTTPTransport())
        let rounds = FaultRound.draw(count: options.faultRounds, kinds: kinds, latest: Self.latest, seed: options.faultSeed)
        var outcomes: [RoundOutcome] = []
        for round in rounds {
            do {
                let outcome = try await runner.run(round)
                outcomes.append(outcome)
                if let lost = outcome.lost, round.fault != .answerLost {
                    Progress.say("round \(round.number), \(round.fault.title) (\(outcome.phase.rawValue)): session lost: \(lost)")
                }
                if round.number % 10 == 0 { Progress.say("\(round.number) of \(rounds.count) rounds") }
            } catch {
                report.skipped = "stopped in round \(round.number) (\(round.fault.title)): \(error)"
                _ = try? await provider.send("cont")
                break
            }
        }
        await provider.stop()
        await server.shutdown()
        try? FileManager.default.removeItem(at: home)
        summarize(outcomes, kinds: kinds, into: &report)
        return report
    }

    private func summarize(_ outcomes: [RoundOutcome], kinds: [SessionFault], into report: inout FigureReport) {
        var table = CountTable(heading: "fault", columns: ["rounds", "lost", "reuse"] + FaultPhase.allCases.map(\.rawValue))
        for kind in kinds {
            let mine = outcomes.filter { $0.round.fault == kind }
            let phases = FaultPhase.allCases.map { phase in mine.count { $0.phase == phase } }
            table.rows.append(.init(
                name: kind.title,
                counts: [mine.count, mine.count { $0.lost != nil }, mine.reduce(0) { $0 + $1.reuseDetections }] + phases))
            let exits = Dictionary(grouping: mine, by: \.faultedExit).mapValues(\.count)
                .sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            if !mine.isEmpty { report.notes.append("\(kind.title): the faulted call ended \(exits)") }
            if kind != .answerLost, let first = mine.first(where: { $0.lost != nil }) {
                let moment = Format.number(first.round.delay.milliseconds)
                report.notes.append(
                    "\(kind.title): first session lost in round \(first.round.number), fault \(moment) ms after the start "
                        + "(\(first.phase.rawValue)): \(first.lost ?? "")")
            }
        }
        report.counts = table
        report.add("the faulted tokenctl token, start to exit", .seconds, outcomes.map(\.faultedSeconds))
        report.add("round: import, fault, recovery and checks", .seconds, outcomes.map(\.seconds))

        let kept = outcomes.filter { $0.round.fault != .answerLost }
        let lost = kept.count { $0.lost != nil }
        let reuse = kept.reduce(0) { $0 + $1.reuseDetections }
        report.target(
            "sessions lost where the answer reached the machine", goal: "0", value: "\(lost) of \(kept.count) rounds",
            met: lost == 0)
        report.target("reuse detections where the answer reached the machine", goal: "0", value: "\(reuse)", met: reuse == 0)
        let neverReached = outcomes.filter { $0.round.fault == .answerLost }
        report.notes.append(
            "Counted apart, answers that never reached the machine: \(neverReached.count { $0.lost != nil }) of "
                + "\(neverReached.count) sessions lost, \(neverReached.reduce(0) { $0 + $1.reuseDetections }) reuse "
                + "detections. The server rotated and closed the connection; the same refresh token sent once more is a "
                + "reuse to a server without a grace period, which revokes the grant (\"The refresh window\" in "
                + "Sharing a session between processes).")
        report.notes.append(
            "Kinds in shuffled blocks, each fault 0-\(Format.number(Self.latest.milliseconds)) ms after the start of "
                + "tokenctl token; phase: where the call was then, read from the server's counters. The same draw: "
                + "scripts/bench --only 8 --fault-rounds \(options.faultRounds) --fault-seed \(options.faultSeed) "
                + "(same kinds and moments; the machine's timing differs).")
    }

    /// Why the read-only fault cannot run here (`unshare -m` needs root, or util-linux is missing); `nil` when it can.
    private static func mountNamespacesUnavailable() async -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/nsenter") else { return "no /usr/bin/nsenter" }
        do {
            let result = try await ChildProcess.run("/usr/bin/unshare", ["-m", "/bin/true"], timeout: .seconds(30))
            if result.status == 0 { return nil }
            return "unshare -m failed (it needs root): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        } catch {
            return "\(error)"
        }
    }
}
