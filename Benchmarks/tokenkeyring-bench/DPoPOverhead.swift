import Foundation
import HTTPTypes
import TokenAuth
import TokenAuthDPoP
import TokenAuthTPM
import TokenAuthURLSession

/// Figure 9: what DPoP (RFC 9449) costs a client. `AuthorizedClient` with tokens bound to a software key (a proof
/// with `ath` signed for every request) against the same client with bearer tokens; proofs per second on one core;
/// and one proof's latency with the key in a TPM, through ESAPI.
///
/// The server is `oauth-test-server` in a process of its own, checking every proof (an ECDSA verification, the `jti`
/// ledger), as a real server does on another machine: this process's CPU time is the client's alone. Both modes send
/// `GET /resource` through the same URLSession, in interleaved chunks in rotating order, as figure 5 does. Two ratios
/// per concurrency: the client's CPU per request, bearer's over DPoP's — the throughput a client reaches where its
/// own CPU is the limit, the target's measure —, and the wall-clock throughput, where on these two cores the server's
/// check of every proof competes with the client.
struct DPoPOverhead {
    let options: Options
    /// Where proofs are made for the proof rate (the in-process server's resource URL: nothing is sent).
    let oauth: LoopbackOAuth
    static let chunksPerRound = 8

    enum Mode: String, CaseIterable {
        case bearer = "AuthorizedClient, bearer"
        case dpop = "AuthorizedClient, DPoP (software key)"
    }

    func run() async -> FigureReport {
        var report = FigureReport(id: 9, title: "DPoP: AuthorizedClient with proofs vs bearer; proofs per second; a TPM's signature")
        let dpop = DPoP(keys: SoftwareProofKeys())
        let path = options.oauthTestServerPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            report.skipped = "no oauth-test-server at \(path); build it next to the benchmark or pass --oauth-test-server"
            return report
        }
        let server: ServerProcess
        let transport = URLSessionHTTPTransport()
        let clients: [Mode: AuthorizedClient]
        let key: ProofKey
        do {
            server = try await ServerProcess.start(path)
            key = try await dpop.keys.makeKey()
            let bearer = try await server.tokens(transport: transport, dpop: nil, key: nil)
            let bound = try await server.tokens(transport: transport, dpop: dpop, key: key)
            guard bound.isDPoPBound, !bearer.isDPoPBound else {
                report.notes.append("the server issued \(bound.tokenType) and \(bearer.tokenType) tokens, not DPoP and Bearer")
                await server.stop()
                return report
            }
            func client(_ auth: Auth, dpop: DPoP?) -> AuthorizedClient {
                AuthorizedClient(
                    manager: AuthManager(store: InMemoryAuthStore(auth), refresher: TokenEndpointClient(
                        client: OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: ServerProcess.clientID),
                        transport: transport, dpop: dpop)),
                    transport: transport, dpop: dpop)
            }
            clients = [.bearer: client(bearer, dpop: nil), .dpop: client(bound, dpop: dpop)]
        } catch {
            report.notes.append("could not start the figure's server or get its tokens: \(error)")
            return report
        }
        let request = HTTPRequest(method: .get, url: server.resourceURL)
        var outcomes = Outcomes()
        for concurrency in [1, 64] {
            let requests = concurrency == 1 ? max(1, options.clientRequests / 4) : options.clientRequests
            for mode in Mode.allCases {
                let client = clients[mode]!
                _ = await ClientOverhead.batch(min(requests, 100), concurrency: concurrency) {
                    try await client.send(request).0.status.code
                }
            }
            var rates: [Mode: [Double]] = [:], cpuPerRequest: [Mode: [Double]] = [:]
            var ratios: [Double] = [], cpuRatios: [Double] = []
            let chunk = max(1, requests / Self.chunksPerRound)
            for round in 0..<options.rounds {
                var seconds: [Mode: Double] = [:], cpu: [Mode: Double] = [:]
                for step in 0..<Self.chunksPerRound {
                    for mode in Mode.allCases.inTurn(round: round, step: step) {
                        let client = clients[mode]!
                        let cpuBefore = Timing.processCPUSeconds()
                        let (result, elapsed) = await Timing.measure {
                            await ClientOverhead.batch(chunk, concurrency: concurrency) {
                                try await client.send(request).0.status.code
                            }
                        }
                        cpu[mode, default: 0] += Timing.processCPUSeconds() - cpuBefore
                        seconds[mode, default: 0] += elapsed
                        outcomes.merge(result)
                    }
                }
                let sent = Double(chunk * Self.chunksPerRound)
                for mode in Mode.allCases {
                    rates[mode, default: []].append(sent / seconds[mode]!)
                    cpuPerRequest[mode, default: []].append(cpu[mode]! * 1e6 / sent)
                }
                ratios.append(seconds[.bearer]! / seconds[.dpop]!)
                cpuRatios.append(cpu[.bearer]! / cpu[.dpop]!)
            }
            let median = Summary(cpuRatios)!.median
            Progress.say("DPoP vs bearer at \(concurrency): client CPU ratio \(String(format: "%.3f", median))")
            for mode in Mode.allCases { report.add("\(mode.rawValue), \(concurrency) concurrent", .perSecond, rates[mode]!) }
            for mode in Mode.allCases {
                report.add("client CPU per request, \(mode.rawValue), \(concurrency)", .microseconds, cpuPerRequest[mode]!)
            }
            report.add("ratio DPoP / bearer at \(concurrency), client CPU", .ratio, cpuRatios)
            report.add("ratio DPoP / bearer at \(concurrency), wall clock (server on the same cores)", .ratio, ratios)
            report.target(
                "client throughput DPoP / bearer at \(concurrency) concurrent (CPU per request)", goal: "≥ 0.90",
                value: String(format: "%.3f× (median; range %.3f–%.3f)", median, cpuRatios.min()!, cpuRatios.max()!),
                met: median >= 0.90)
        }
        await server.stop()
        report.add("failed requests", .count, [Double(outcomes.failures)])
        if let example = outcomes.example { report.notes.append("first failure: \(example)") }
        await addProofRate(to: &report, dpop: dpop, key: key)
        await addTPMLatency(to: &report)
        report.notes.append(
            "Requests per round and mode: \(Format.grouped(max(1, options.clientRequests / 4))) at 1 concurrent, "
                + "\(Format.grouped(options.clientRequests)) at 64, in \(Self.chunksPerRound) interleaved chunks; "
                + "the server is oauth-test-server in its own process, checking every proof; client CPU = this "
                + "process's CPU time / requests. Proofs per second: one task making proofs with ath, one after another.")
        return report
    }

    /// Proofs a second from one task (one core): header, claims, `ath`, an ES256 signature with swift-crypto.
    private func addProofRate(to report: inout FigureReport, dpop: DPoP, key: ProofKey) async {
        let accessToken = String(repeating: "t", count: 43)
        let proofs = 20_000
        var rates: [Double] = []
        do {
            _ = try await dpop.proof(for: oauth.resourceRequest, key: key, accessToken: accessToken)
            for _ in 0..<options.rounds {
                let (_, elapsed) = try await Timing.measure {
                    for _ in 0..<proofs {
                        _ = try await dpop.proof(for: oauth.resourceRequest, key: key, accessToken: accessToken)
                    }
                }
                rates.append(Double(proofs) / elapsed)
            }
        } catch {
            report.notes.append("proof rate not measured: \(error)")
            return
        }
        report.add("proofs per second, one core (software key)", .perSecond, rates)
    }

    /// One proof's latency with the key in a TPM: the TPM that `TPM2TOOLS_TCTI` names (scripts/bench starts swtpm),
    /// else the kernel's `/dev/tpmrm0`; a note says why when there is none.
    private func addTPMLatency(to report: inout FigureReport) async {
        let environment = ProcessInfo.processInfo.environment
        guard let tcti = TPMDevice.defaultTCTI(environment: environment) else {
            report.notes.append("TPM signature not measured: no TPM (TPM2TOOLS_TCTI unset, no /dev/tpmrm0)")
            return
        }
        let dpop = DPoP(keys: TPMProofKeys(tcti: tcti))
        let signatures = 200
        var milliseconds: [Double] = []
        do {
            let key = try await dpop.keys.makeKey()
            _ = try await dpop.proof(for: oauth.resourceRequest, key: key, accessToken: "at")
            for _ in 0..<options.rounds {
                let (_, elapsed) = try await Timing.measure {
                    for _ in 0..<signatures {
                        _ = try await dpop.proof(for: oauth.resourceRequest, key: key, accessToken: "at")
                    }
                }
                milliseconds.append(elapsed * 1000 / Double(signatures))
            }
        } catch {
            report.notes.append("TPM signature not measured: \(error)")
            return
        }
        report.add("one proof with the key in the TPM (\(tcti.split(separator: ":").first ?? "TPM"), ESAPI)", .milliseconds, milliseconds)
    }
}
