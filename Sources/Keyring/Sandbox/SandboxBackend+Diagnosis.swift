import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc  // dlsym
#endif

extension SandboxBackend {
    /// ``Keyring/diagnose()`` in a sandbox: where the process runs, whether its libsecret has the portal fix, and
    /// whether the app's keyring answers.
    func diagnose() async -> KeyringDiagnosis {
        typealias Check = KeyringDiagnosis.Check
        let environment = ProcessInfo.processInfo.environment
        var checks: [Check] = []
        let place = environment["FLATPAK_ID"].map { "Flatpak sandbox (app \($0))" }
            ?? (DesktopPortal.isSandboxed ? "Flatpak sandbox" : nil)
            ?? environment["SNAP_NAME"].map { "Snap (\($0))" }
            ?? "SECRET_BACKEND=file"
        checks.append(Check(
            name: "backend", status: .ok,
            detail: "\(place): the app's own keyring file \(file.path), unlocked with a key from the "
                + "Secret portal (org.freedesktop.secrets is not used)",
            fix: nil))
        if Self.libsecretHasPortalFix {
            checks.append(Check(name: "libsecret", status: .ok, detail: "0.21.2 or newer", fix: nil))
        } else {
            checks.append(Check(
                name: "libsecret", status: .warning,
                detail: "older than 0.21.2: it can miss the Secret portal's answer and wait (each call then ends at "
                    + "its timeout and is made once more)",
                fix: "Bundle libsecret 0.21.4 or newer with the app (a module in its Flatpak manifest), or use a "
                    + "runtime that carries it (GNOME 46 or later)"))
        }
        do {
            _ = try await call("checking the app's keyring") { _ in
                try FileBackendCalls.search(["tokenkeyring-diagnosis": UUID().uuidString])
            }
            checks.append(Check(name: "app keyring", status: .ok, detail: "opened with the portal's key", fix: nil))
            return KeyringDiagnosis(checks: checks, error: nil)
        } catch let error as KeyringError {
            let detail = error.reasonWithCause
            checks.append(Check(name: "app keyring", status: .failed, detail: detail, fix: error.fix))
            return KeyringDiagnosis(checks: checks, error: error)
        } catch {
            let failure = KeyringError.diagnosisInterrupted(error)
            checks.append(Check(name: "app keyring", status: .failed, detail: failure.reason, fix: nil))
            return KeyringDiagnosis(checks: checks, error: failure)
        }
    }

    /// Whether the libsecret in this process is 0.21.2 or newer (it exports `secret_attributes_validate`, new in
    /// 0.21.2): the portal race of libsecret issue 58 is fixed in 0.21.4, and no symbol tells 0.21.2–0.21.3 apart.
    static var libsecretHasPortalFix: Bool {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "secret_attributes_validate") != nil
    }
}
