import Foundation
import Keyring
import Synchronization
import TokenAuth
import TokenAuthTPM
import TokenAuthKeyring
import TokenAuthSignIn
import TokenAuthURLSession

extension AuthSession {
    /// Lets the app's sessions survive the app's death in a refresh: call it once, first in `main`, before anything
    /// else runs.
    ///
    /// ```swift
    /// import Foundation
    /// import TokenKeyring
    ///
    /// AuthSession.bootstrap()  // first: returns at once in the app
    /// let session = AuthSession(issuer: URL(string: "https://auth.example.com")!, clientID: "my-desktop-app")
    /// ```
    ///
    /// Between sending a refresh grant and storing its answer, the process that sent it holds the only copy of the
    /// session: the server retired the old refresh token as it answered. An app killed there (SIGKILL, SIGTERM, a
    /// crash, the user closing it from a task manager) lost the session, and for every other process of the item too.
    /// After `bootstrap()`, every refresh of every ``AuthSession`` in the app runs in a process started from the app's
    /// own executable, in a session of its own: it takes the item's lock, sends the grant, stores the answer (or keeps
    /// it for the next process, when the keyring cannot take it) and ends, whatever happens to the app meanwhile. The
    /// app waits for it without holding the lock, then reads what it stored. That process runs this same call: there
    /// it does the refresh and exits, never returning to the rest of `main` — which is why the call comes first.
    ///
    /// What it cannot survive: whatever kills every process of the app at once — SIGKILL to the app's whole cgroup
    /// (`systemctl --user kill -s KILL` of its scope, the out-of-memory killer), a power cut — and an app that replaced
    /// `/proc/self/exe` (an update installed while it runs) before the refresh. A stop of the app's scope, or of the
    /// session's at logout, sends SIGTERM first, which the refreshing process ignores (below): it has until systemd's
    /// stop timeout (90 s by default) to end, as it does once the answer is stored. The refreshing process sends
    /// with `URLSessionHTTPTransport`, not a custom ``Configuration/transport``. Without `bootstrap()`, refreshes run in
    /// the app's process, as before.
    ///
    /// In a Flatpak sandbox every process of the app's instance ends with its main process, so the refreshing process
    /// is started in a new instance of the app instead, through the Flatpak portal (`flatpak-spawn`, in every
    /// freedesktop-based runtime): the same `/app`, permissions and keyring, and it outlives the app's instance. It
    /// gets the environment `flatpak run` gives the app, not the app's own (set what it needs in the manifest's
    /// `finish-args`). Where the portal cannot be reached, or the runtime has no `flatpak-spawn`, the refresh runs in
    /// the app's instance, and survives what kills the app's process but not its instance. The refreshing process
    /// ignores SIGTERM, SIGINT, SIGHUP and SIGQUIT (which `flatpak-spawn` passes on to it): it ends by itself once the
    /// answer is stored or the refresh failed, bounded by the keyring's and the transport's timeouts (outside a
    /// sandbox too).
    public static func bootstrap() {
        guard getenv(RefreshProcess.variable) != nil else {
            RefreshProcess.isBootstrapped.store(true, ordering: .sequentiallyConsistent)
            return
        }
        RefreshProcess.serveAndExit()
    }
}

extension RefreshProcess {
    /// The refreshing process: reads its job on standard input, refreshes, prints the outcome, and exits.
    static func serveAndExit() -> Never {
        signal(SIGPIPE, SIG_IGN)  // an app that died does not read the outcome: the refresh is stored all the same
        // What ends the app must not end its refresh: flatpak-spawn passes on to this process the signals it gets (a
        // SIGTERM to the app's whole scope, say). The refresh ends by itself, bounded by the keyring's and the
        // transport's timeouts.
        for ignored in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2] { signal(ignored, SIG_IGN) }
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let outcome = Mutex<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let served = await serve(input)
            outcome.withLock { $0 = served }
            done.signal()
        }
        done.wait()
        let answer = outcome.withLock { $0 } ?? Outcome(TokenAuthError.refreshNotRun())
        if let text = try? JSONEncoder().encode(answer) { FileHandle.standardOutput.write(text) }
        exit(0)
    }

    /// Refreshes as `job` says, under the item's lock, with everything `AuthSession` gives its managers.
    private static func serve(_ input: Data) async -> Outcome {
        do {
            let job = try JSONDecoder().decode(Job.self, from: input)
            let keyring = Keyring(configuration: .init(
                timeout: .milliseconds(job.keyringTimeoutMilliseconds), prompting: job.keyringPrompts ? .allowed : .never))
            // The answer is stored, or kept and reported: never handed out from this process's memory alone.
            let leeway = Duration.milliseconds(job.leewayMilliseconds)
            // A session bound to a key refreshes with it, in the TPM or read from the item, whichever it is: the keys
            // of `signsWith(_:)`'s providers.
            let configuration = AuthManager.Configuration(
                leeway: leeway, minimumValidity: leeway, scope: job.scope, servesUnstoredTokens: false,
                dpop: DPoP(keys: MachineProofKeys()))
            let manager = try await AuthManager.forKeyringItem(
                service: job.service, account: job.account, clientID: job.clientID, keyring: keyring,
                transport: URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize),
                configuration: configuration, identityChecks: IDTokenVerifier.forStoredClient, followsChanges: false)
            switch (job.request, job.rejectedToken) {
            case ("forced", _): _ = try await manager.refresh()
            case ("rejected", let token?): _ = try await manager.refresh(rejecting: token)
            default: _ = try await manager.validAuth()
            }
            return Outcome(nil)
        } catch {
            return Outcome(error)
        }
    }
}
