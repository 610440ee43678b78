import Foundation
import HTTPTypes
import TokenAuth
import TokenAuthURLSession

/// Figure 5: what `AuthorizedClient` adds to a request over the bare transport, when the token is valid.
///
/// All modes send `GET /resource` with the same valid token through the same URLSession; the bare modes set the
/// `Authorization` field themselves. A third mode, the bare transport after one `validToken()` call per request,
/// separates the cost of asking the `AuthManager` actor from the rest of the client. Each round runs every mode
/// at each concurrency in interleaved chunks, in rotating order.
struct ClientOverhead {
    let oauth: LoopbackOAuth
    let options: Options
    /// Each round sends its requests in this many chunks per mode, the modes taking turns.
    static let chunksPerRound = 8

    enum Mode: String, CaseIterable {
        case authorized = "AuthorizedClient"
        case bare = "bare transport"
        case bareAfterValidToken = "validToken() + bare transport"
    }

    func run() async -> FigureReport {
        var report = FigureReport(id: 5, title: "Client overhead: AuthorizedClient vs bare URLSessionHTTPTransport, valid token")
        let auth = oauth.session(expired: false)
        let manager = oauth.manager(auth)
        let client = AuthorizedClient(manager: manager, transport: oauth.transport)
        let transport = oauth.transport
        let request = oauth.resourceRequest
        var bare = request
        bare.headerFields[.authorization] = "Bearer \(auth.accessToken)"
        let senders: [Mode: @Sendable () async throws -> Int] = [
            .authorized: { try await client.send(request).0.status.code },
            .bare: { [bare] in try await transport.send(bare, body: nil).0.status.code },
            .bareAfterValidToken: {
                var authorized = request
                authorized.headerFields[.authorization] = "Bearer \(try await manager.validToken())"
                return try await transport.send(authorized, body: nil).0.status.code
            },
        ]
        var outcomes = Outcomes()

        for concurrency in [1, 64] {
            let requests = concurrency == 1 ? max(1, options.clientRequests / 4) : options.clientRequests
            for mode in Mode.allCases {
                _ = await Self.batch(min(requests, 100), concurrency: concurrency, senders[mode]!)
            }
            var rates: [Mode: [Double]] = [:], cpuPerRequest: [Mode: [Double]] = [:]
            var ratios: [Double] = [], managerRatios: [Double] = []
            let chunk = max(1, requests / Self.chunksPerRound)
            for round in 0..<options.rounds {
                var seconds: [Mode: Double] = [:], cpu: [Mode: Double] = [:]
                // Small interleaved chunks, so a burst of load from elsewhere on the machine hits every mode alike.
                for step in 0..<Self.chunksPerRound {
                    for mode in Mode.allCases.inTurn(round: round, step: step) {
                        let cpuBefore = Timing.processCPUSeconds()
                        let (result, elapsed) = await Timing.measure {
                            await Self.batch(chunk, concurrency: concurrency, senders[mode]!)
                        }
                        cpu[mode, default: 0] += Timing.processCPUSeconds() - cpuBefore
                        seconds[mode, default: 0] += elapsed
                        outcomes.merge(result)
                    }
                }
                var roundRates: [Mode: Double] = [:]
                let sent = Double(chunk * Self.chunksPerRound)
                for mode in Mode.allCases {
                    roundRates[mode] = sent / seconds[mode]!
                    rates[mode, default: []].append(sent / seconds[mode]!)
                    cpuPerRequest[mode, default: []].append(cpu[mode]! * 1e6 / sent)
                }
                ratios.append(roundRates[.authorized]! / roundRates[.bare]!)
                managerRatios.append(roundRates[.bareAfterValidToken]! / roundRates[.bare]!)
            }
            let median = Summary(ratios)!.median
            Progress.say("client overhead at \(concurrency): median ratio \(String(format: "%.3f", median))")
            for mode in Mode.allCases {
                report.add("\(mode.rawValue), \(concurrency) concurrent", .perSecond, rates[mode]!)
            }
            for mode in Mode.allCases {
                report.add("CPU per request, \(mode.rawValue), \(concurrency)", .microseconds, cpuPerRequest[mode]!)
            }
            report.add("ratio AuthorizedClient / bare at \(concurrency)", .ratio, ratios)
            report.add("ratio validToken()+bare / bare at \(concurrency)", .ratio, managerRatios)
            report.target(
                "throughput ratio at \(concurrency) concurrent", goal: "≥ 0.95",
                value: String(format: "%.3f× (median; range %.3f–%.3f)", median, ratios.min()!, ratios.max()!),
                met: median >= 0.95)
        }
        await addOwnCost(to: &report, request: request, auth: auth)
        report.add("failed requests", .count, [Double(outcomes.failures)])
        if let example = outcomes.example { report.notes.append("first failure: \(example)") }
        report.notes.append(
            "Requests per round and mode: \(Format.grouped(max(1, options.clientRequests / 4))) at 1 concurrent, "
                + "\(Format.grouped(options.clientRequests)) at 64, in \(Self.chunksPerRound) interleaved chunks; "
                + "throughput = requests / wall time of the chunks; "
                + "CPU per request = this process's CPU time (client and in-process server) / requests.")
        return report
    }

    /// The client's own work per request, measured over ``NullTransport`` so that no network time hides it.
    private func addOwnCost(to report: inout FigureReport, request: HTTPRequest, auth: Auth) async {
        let null = NullTransport()
        let client = AuthorizedClient(manager: oauth.manager(auth), transport: null)
        var bare = request
        bare.headerFields[.authorization] = "Bearer \(auth.accessToken)"
        let calls = 100_000
        var clientNanoseconds: [Double] = [], bareNanoseconds: [Double] = []
        do {
            for _ in 0..<options.rounds {
                let (_, viaClient) = try await Timing.measure {
                    for _ in 0..<calls { _ = try await client.send(request) }
                }
                let (_, direct) = try await Timing.measure {
                    for _ in 0..<calls { _ = try await null.send(bare, body: nil) }
                }
                clientNanoseconds.append(viaClient * 1e9 / Double(calls))
                bareNanoseconds.append(direct * 1e9 / Double(calls))
            }
        } catch {
            report.notes.append("own-cost measurement failed: \(error)")
            return
        }
        report.add("own cost per request, AuthorizedClient (null transport)", .nanoseconds, clientNanoseconds)
        report.add("own cost per request, bare (null transport)", .nanoseconds, bareNanoseconds)
    }

    /// Sends `requests` requests, at most `concurrency` at a time (figures 5 and 9).
    static func batch(
        _ requests: Int, concurrency: Int, _ send: @escaping @Sendable () async throws -> Int
    ) async -> Outcomes {
        await withTaskGroup(of: Result<Int, any Error>.self) { group in
            var outcomes = Outcomes()
            var started = 0
            func startOne() {
                started += 1
                group.addTask {
                    do { return .success(try await send()) } catch { return .failure(error) }
                }
            }
            while started < min(concurrency, requests) { startOne() }
            for await result in group {
                outcomes.record(result)
                if started < requests { startOne() }
            }
            return outcomes
        }
    }
}
