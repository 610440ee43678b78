import ChildProcesses
import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// Figure 2: `tokenctl token` processes started at once over one expired keyring item.
///
/// Each round seeds the item with tokens the server issued, marked expired, then starts the processes together.
/// They must share one refresh (the flock and the re-read of the item) and never present a spent refresh token.
/// For scale, the same processes then run over the item they just refreshed, which needs no request.
struct CrossProcess {
    let oauth: LoopbackOAuth
    let options: Options
    let keyring: Keyring
    let service: String

    func run() async -> FigureReport {
        let count = options.processes
        var report = FigureReport(
            id: 2, title: "Cross-process: \(count) `tokenctl token` processes at once over one expired keyring item")
        guard let tokenctl = report.requireTokenctl(options) else { return report }
        let store = oauth.store(service: service, keyring: keyring)

        var wallTimes = ExpiredVersusValid()
        var grants: [Double] = [], reuses: [Double] = [], failures = 0, distinctTokens: [Double] = []
        var example: String?
        do {
            for round in 0..<options.rounds {
                try await store.save(oauth.session(expired: true))
                let before = oauth.server.stats
                let expired = try await launch(count, tokenctl: tokenctl)
                let after = oauth.server.stats
                let valid = try await launch(count, tokenctl: tokenctl)
                grants.append(Double(after.refreshGrants - before.refreshGrants))
                reuses.append(Double(oauth.server.stats.reuseDetections - before.reuseDetections))
                for batch in [expired, valid] {
                    let failed = batch.results.filter { $0.status != 0 }
                    failures += failed.count
                    example = example ?? failed.first.map { "exit \($0.status): \($0.stderr)" }
                }
                distinctTokens.append(Double(Set(expired.results.map(\.stdout)).count))
                wallTimes.append(expired: expired.seconds, valid: valid.seconds)
                Progress.say(
                    "cross-process round \(round + 1): expired \(Format.number(expired.seconds)) s, "
                        + "valid \(Format.number(valid.seconds)) s, grants \(Format.number(grants.last!))")
            }
        } catch {
            report.skipped = "stopped: \(error)"
        }
        _ = try? await keyring.delete(store.attributes)

        report.add(
            wallTimes, .seconds, expired: "wall time, expired item (all exited)",
            valid: "wall time, valid item (all exited)", ratio: "ratio expired / valid")
        report.add("refresh grants per round", .count, grants)
        report.add("reuse detections per round", .count, reuses)
        report.add("distinct tokens printed per expired round", .count, distinctTokens)
        guard !grants.isEmpty else { return report }
        report.targetOneRefreshPerRound("refresh grants", grants)
        report.target(
            "reuse detections", goal: "0", value: Format.number(reuses.reduce(0, +)), met: reuses.allSatisfy { $0 == 0 })
        report.target("failed processes", goal: "0", value: "\(failures)", met: failures == 0)
        if let example { report.notes.append("first failure: \(example)") }
        report.notes.append(
            "Each process connects to the Secret Service, reads the item, takes the flock, re-reads, and (one of them) "
                + "refreshes and saves. Wall time is from the first launch to the last exit.")
        return report
    }

    struct Batch {
        let results: [ChildResult]
        let seconds: Double
    }

    /// Starts `count` `tokenctl token` processes together and waits for all of them.
    func launch(_ count: Int, tokenctl: String) async throws -> Batch {
        let arguments = ["token", "--service", service, "--account", LoopbackOAuth.user, "--no-prompt"]
        let (results, seconds) = try await Timing.measure {
            try await withThrowingTaskGroup(of: ChildResult.self) { group in
                for _ in 0..<count {
                    group.addTask { try await ChildProcess.run(tokenctl, arguments, timeout: .seconds(60)) }
                }
                return try await group.reduce(into: [ChildResult]()) { $0.append($1) }
            }
        }
        return Batch(results: results, seconds: seconds)
    }
}
