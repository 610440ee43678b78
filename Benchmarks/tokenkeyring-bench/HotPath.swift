import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// Figure 3: `validToken()` when the token in memory is valid — what every authorized request pays — against
/// a keyring read (`KeyringAuthStore.load`), which is what a client without the in-memory copy pays per request.
///
/// One task calls the manager in a loop, so the calls run one at a time; the rate per core divides the calls by
/// the CPU time the whole process used meanwhile.
struct HotPath {
    let oauth: LoopbackOAuth
    let options: Options
    let store: KeyringAuthStore

    func run() async -> FigureReport {
        var report = FigureReport(id: 3, title: "Hot path: validToken() on a valid in-memory token vs a keyring read")
        let manager = oauth.manager(oauth.session(expired: false))
        var nanosecondsPerCall: [Double] = [], callsPerCPUSecond: [Double] = [], callsPerSecond: [Double] = []
        var readLatencies: [Double] = []
        do {
            try await store.save(oauth.session(expired: false))
            _ = try await manager.validToken()
            _ = try await store.load()
            let readsPerRound = max(1, options.keyringReads / options.rounds)
            for round in 0..<options.rounds {
                let calls = options.hotCalls
                let cpuBefore = Timing.processCPUSeconds()
                let (_, seconds) = try await Timing.measure {
                    for _ in 0..<calls { _ = try await manager.validToken() }
                }
                let cpu = Timing.processCPUSeconds() - cpuBefore
                nanosecondsPerCall.append(seconds * 1e9 / Double(calls))
                callsPerSecond.append(Double(calls) / seconds)
                callsPerCPUSecond.append(Double(calls) / cpu)
                for _ in 0..<readsPerRound {
                    let (_, read) = try await Timing.measure { try await store.load() }
                    readLatencies.append(read * 1e6)
                }
                Progress.say(
                    "hot path round \(round + 1): \(Format.grouped(Int(Double(calls) / seconds))) calls/s, "
                        + "keyring read \(Format.number(readLatencies.last!)) µs")
            }
        } catch {
            report.skipped = "stopped: \(error)"
        }

        report.add("validToken(), time per call", .nanoseconds, nanosecondsPerCall)
        report.add("validToken(), calls/s (one caller)", .perSecond, callsPerSecond)
        report.add("validToken(), calls per CPU-second", .perSecond, callsPerCPUSecond)
        report.add("KeyringAuthStore.load(), per read", .microseconds, readLatencies)
        guard let call = Summary(nanosecondsPerCall), let perCore = Summary(callsPerCPUSecond),
              let read = Summary(readLatencies) else { return report }
        let ratio = read.median * 1000 / call.median
        report.add("ratio keyring read / validToken()", .ratio, [ratio])
        report.target(
            "validToken() calls per second per core", goal: "≥ 1,000,000",
            value: Format.grouped(Int(perCore.median)) + " (median, per CPU-second)", met: perCore.median >= 1_000_000)
        report.target(
            "keyring read / validToken()", goal: "≥ 500×", value: String(format: "%.0f×", ratio), met: ratio >= 500)
        report.notes.append(
            "One task calls AuthManager.validToken() \(Format.grouped(options.hotCalls)) times per round; with a valid, "
                + "stored token each call reads the token the actor published, without entering the actor.")
        return report
    }
}
