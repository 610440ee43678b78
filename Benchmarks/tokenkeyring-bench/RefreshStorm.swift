import Foundation
import HTTPTypes
import TokenAuth
import TokenAuthURLSession

/// Figure 1: N concurrent authorized requests over an expired token against the same N over a fresh one.
///
/// Each round runs both, in alternating order, each with a new session and a new `AuthorizedClient` over one
/// shared URLSession. The expired run must cost exactly one refresh grant at the server and no failures; its wall
/// time over the fresh run's is the price of the storm.
struct RefreshStorm {
    let oauth: LoopbackOAuth
    let options: Options

    func run() async -> FigureReport {
        let requests = options.stormRequests
        var report = FigureReport(
            id: 1, title: "Refresh storm in process: \(Format.grouped(requests)) concurrent AuthorizedClient requests, "
                + "expired vs fresh token")
        var wallTimes = ExpiredVersusValid(), cpuTimes = ExpiredVersusValid()
        var grants: [Double] = [], freshGrants: [Double] = []
        var outcomes = Outcomes()

        // Warm-up: connections, code paths and the server's first requests stay out of the figures.
        _ = await storm(expired: true, requests: min(requests, 200))
        _ = await storm(expired: false, requests: min(requests, 200))

        for round in 0..<options.rounds {
            var times: [Bool: Double] = [:], cpu: [Bool: Double] = [:]
            for expired in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                await settle(requests: requests)
                let run = await storm(expired: expired, requests: requests)
                times[expired] = run.seconds
                cpu[expired] = run.cpuSeconds
                outcomes.merge(run.outcomes)
                if expired { grants.append(Double(run.grants)) } else { freshGrants.append(Double(run.grants)) }
            }
            let expired = times[true]!, fresh = times[false]!
            wallTimes.append(expired: expired, valid: fresh)
            cpuTimes.append(expired: cpu[true]!, valid: cpu[false]!)
            Progress.say("storm round \(round + 1): expired \(Format.number(expired)) s, fresh \(Format.number(fresh)) s")
        }

        report.add(
            wallTimes, .seconds, expired: "wall time, expired token", valid: "wall time, fresh token",
            ratio: "ratio expired / fresh")
        report.add("throughput, expired token", .perSecond, wallTimes.expired.map { Double(requests) / $0 })
        report.add(
            cpuTimes, .seconds, expired: "CPU time, expired token", valid: "CPU time, fresh token",
            ratio: "CPU ratio expired / fresh")
        report.add("refresh grants per expired run", .count, grants)
        report.add("refresh grants per fresh run", .count, freshGrants)
        report.add("failed requests, all runs", .count, [Double(outcomes.failures)])

        let medianRatio = Summary(wallTimes.ratios)?.median ?? .nan
        report.targetOneRefreshPerRound("refresh grants per storm", grants)
        report.target(
            "failures", goal: "0", value: "\(outcomes.failures)", met: outcomes.failures == 0)
        report.target(
            "wall-time ratio expired / fresh", goal: "≤ 1.15", value: String(format: "%.2f× (median)", medianRatio),
            met: medianRatio <= 1.15)
        if let example = outcomes.example { report.notes.append("first failure: \(example)") }
        report.notes.append(
            "Client: AuthorizedClient over AuthManager (in-memory store) and one URLSessionHTTPTransport; server: "
                + "OAuthTestServer on 127.0.0.1 in the same process.")
        return report
    }

    struct Run {
        let seconds: Double
        /// CPU time of the whole process (client and in-process server) during the run.
        let cpuSeconds: Double
        let grants: Int
        let outcomes: Outcomes
    }

    /// Lets the previous storm's connections drain, then warms the transport up again with a small batch over a
    /// fresh token, so that both modes start from the same state.
    ///
    /// Without this, whichever run came first in a round was the slower one (by up to 2× on a loaded machine),
    /// and an odd number of rounds made that look like the cost of the refresh.
    func settle(requests: Int) async {
        try? await Task.sleep(for: .seconds(1))
        _ = await storm(expired: false, requests: min(requests, 500))
    }

    /// `requests` concurrent `GET /resource` through a new client whose session is expired or fresh.
    func storm(expired: Bool, requests: Int) async -> Run {
        let client = AuthorizedClient(manager: oauth.manager(oauth.session(expired: expired)), transport: oauth.transport)
        let request = oauth.resourceRequest
        let before = oauth.server.stats.refreshGrants
        let cpuBefore = Timing.processCPUSeconds()
        let (outcomes, seconds) = await Timing.measure {
            await withTaskGroup(of: Result<Int, any Error>.self) { group in
                for _ in 0..<requests {
                    group.addTask {
                        do {
                            return .success(try await client.send(request).0.status.code)
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                var outcomes = Outcomes()
                for await result in group { outcomes.record(result) }
                return outcomes
            }
        }
        return Run(
            seconds: seconds, cpuSeconds: Timing.processCPUSeconds() - cpuBefore,
            grants: oauth.server.stats.refreshGrants - before, outcomes: outcomes)
    }
}
