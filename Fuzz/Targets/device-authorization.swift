// libFuzzer target: device authorization answers (RFC 8628 §3.2), as a device authorization endpoint sends them,
// and the poll schedule built from their numbers.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/device-authorization, findings in
// Fuzz/Crashes/device-authorization.
// fuzz-dictionary: device-authorization
import Foundation
@testable import TokenAuthSignIn

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: bytes, count: count))
    let code: DeviceAuthorization.DeviceCode
    do {
        code = try DeviceAuthorization.interpret(body, status: 200)
    } catch {
        // Typed throws: a SignInError by construction.
        precondition(error.code == .unusableDeviceAnswer, "interpret threw \(error.code)")
        precondition(!error.isTransient, "an unusable answer told as transient: asking again meets the same answer")
        return 0
    }
    let prompt = code.prompt
    precondition(!code.deviceCode.isEmpty && !prompt.userCode.isEmpty, "an empty device or user code")
    precondition(!(prompt.verificationURI.host ?? "").isEmpty, "a verification URI without a host")
    precondition(prompt.expiresIn > .zero, "a code lifetime that is not positive")
    precondition(prompt.expiresIn <= DeviceAuthorization.maximumCodeLifetime, "a code lifetime over the bound")
    if let interval = code.interval {
        precondition(interval >= DeviceAuthorization.minimumInterval, "an interval under the bound")
        precondition(interval <= DeviceAuthorization.maximumInterval, "an interval over the bound")
    }
    // The schedule the flow polls by: every wait positive, bounded, and none at or after the code's lifetime.
    var schedule = DevicePollSchedule(interval: code.interval, lifetime: prompt.expiresIn)
    var elapsed = Duration.zero
    for step in 0..<40 {
        precondition(schedule.interval >= DeviceAuthorization.minimumInterval)
        precondition(schedule.interval <= DeviceAuthorization.maximumInterval)
        guard let wait = schedule.nextWait(elapsed: elapsed) else { break }
        precondition(wait > .zero && wait <= DeviceAuthorization.maximumInterval * 64, "a wait out of bounds")
        elapsed += wait
        precondition(elapsed < prompt.expiresIn, "a poll at or after the code's lifetime")
        switch step % 4 {
        case 0: schedule.record(.pending)
        case 1: schedule.record(.slowDown(interval: code.interval))
        case 2: schedule.record(.transientFailure)
        default: schedule.record(.slowDown(interval: nil))
        }
    }
    return 0
}
