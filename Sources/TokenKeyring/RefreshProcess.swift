import Foundation
import Keyring
import Synchronization
import TokenAuth
import TokenAuthDPoP
import TokenAuthTPM

/// The ``RefreshHost`` of an app that called ``AuthSession/bootstrap()``: each refresh runs in a process started from
/// the app's own executable (`/proc/self/exe`), in a session and process group of its own, which refreshes the item
/// under its lock and stores the answer (or keeps it, `RefreshJournal`) before it ends — whatever happens to the app
/// meanwhile: SIGKILL, SIGTERM, a crash, a terminal's ^C.
///
/// The request (with the rejected access token, a secret) goes to the process on its standard input, never in its
/// arguments or environment; its outcome comes back on its standard output.
package struct RefreshProcess: RefreshHost {
    /// Set in the environment of the refreshing process: ``AuthSession/bootstrap()`` runs the refresh there.
    static let variable = "TOKENKEYRING_REFRESH_PROCESS"

    /// Whether ``AuthSession/bootstrap()`` ran in this process: only then is `/proc/self/exe` a program that refreshes
    /// when started with ``variable`` (any other would run the app's `main` again).
    static let isBootstrapped = Atomic<Bool>(false)

    /// The item, and how the process reaches it.
    let job: Job

    /// Whether the refreshing process signs with the keys `provider` makes: it signs with `MachineProofKeys()` —
    /// software keys, and TPM keys of the TPM this process's environment names — so an app with another provider
    /// (its own kind of key, another TPM) refreshes in its own process instead, where its provider is.
    package static func signsWith(_ provider: any ProofKeyProvider) -> Bool {
        if provider is SoftwareProofKeys { return true }
        guard let machine = provider as? MachineProofKeys else { return false }
        return machine.usesProcessEnvironment
    }

    /// What the refreshing process is asked, on its standard input.
    struct Job: Codable, Sendable {
        var version = 1
        var service: String
        var account: String
        var clientID: String?
        /// `needed`, `forced` or `rejected`.
        var request: String
        var rejectedToken: String?
        var leewayMilliseconds: Int64
        var scope: String?
        var keyringTimeoutMilliseconds: Int64
        var keyringPrompts: Bool

        enum CodingKeys: String, CodingKey {
            case version, service, account, request, scope
            case clientID = "client_id", rejectedToken = "rejected_token", leewayMilliseconds = "leeway_ms"
            case keyringTimeoutMilliseconds = "keyring_timeout_ms", keyringPrompts = "keyring_prompts"
        }
    }

    /// What the refreshing process answers on its standard output: nothing went wrong, or the error it met.
    struct Outcome: Codable, Sendable {
        var ok: Bool
        var code: String?
        var reason: String?
        var fix: String?
        var oauthError: String?
        var statusCode: Int?

        enum CodingKeys: String, CodingKey {
            case ok, code, reason, fix
            case oauthError = "oauth_error", statusCode = "status"
        }

        /// The error the app's manager is given, made again from what the process said.
        var error: TokenAuthError? {
            guard !ok else { return nil }
            let code = TokenAuthError.Code.all.first { $0.description == self.code } ?? .storageFailed
            return TokenAuthError(
                code, reason ?? "The process that refreshes the session failed.", fix: fix ?? "Try again.",
                oauthError: oauthError.map { OAuthErrorResponse(error: $0) }, statusCode: statusCode)
        }

        init(_ error: (any Error)?) {
            ok = error == nil
            guard let error else { return }
            if let error = error as? TokenAuthError {
                code = error.code.description
                reason = error.reason
                fix = error.fix
                oauthError = error.oauthErrorCode
                statusCode = error.statusCode
            } else {
                code = TokenAuthError.Code.storageFailed.description
                reason = "The process that refreshes the session could not use the keyring: \(error)"
                fix = "Try again once the keyring can be used."
            }
        }
    }

    init(service: String, account: String, clientID: String?, configuration: AuthManager.Configuration, keyring: Keyring) {
        job = Job(
            service: service, account: account, clientID: clientID, request: "needed", rejectedToken: nil,
            leewayMilliseconds: configuration.leeway.milliseconds, scope: configuration.scope,
            keyringTimeoutMilliseconds: keyring.configuration.timeout.milliseconds,
            keyringPrompts: keyring.configuration.prompting == .allowed)
    }

    package func refresh(_ request: RefreshRequest) async throws {
        var job = self.job
        switch request {
        case .needed: job.request = "needed"
        case .forced: job.request = "forced"
        case .rejected(let accessToken):
            job.request = "rejected"
            job.rejectedToken = accessToken
        }
        let input = try JSONEncoder().encode(job)
        let output = try await Self.run(input)
        guard let outcome = try? JSONDecoder().decode(Outcome.self, from: output) else {
            throw TokenAuthError.refreshNotRun()
        }
        if let error = outcome.error { throw error }
    }

    /// Starts the refreshing process, hands it `input`, and returns what it printed once it ended; on a thread of its
    /// own, since waiting for a process blocks.
    private static func run(_ input: Data) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try SpawnedProcess.run(variable: variable, input: input) })
            }
        }
    }
}

extension Duration {
    /// Whole milliseconds, saturated.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? Int64.max : product + attoseconds / 1_000_000_000_000_000
    }
}
