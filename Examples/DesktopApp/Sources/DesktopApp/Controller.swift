import CGtk
import Foundation
import HTTPTypes
import TokenAuthGLib
import TokenKeyring

/// What the window does: restores the session at start, signs in and out, calls the API, refreshes in the
/// background when the token is due, and follows the item when another process changes it (the session's states).
/// Runs on GTK's thread; the library's work runs off it, and every `await` comes back here.
@GLibMainActor
final class Controller {
    private let session: Session
    private var window: MainWindow!
    /// Who is signed in as last seen (`nil`: nobody).
    private var signedIn: Session.SignedIn?
    /// The sign-in, sign-out or reload under way; the buttons wait for it.
    private var busy = false
    /// The sign-in under way, which Cancel gives up.
    private var signingIn: Task<Void, Never>?
    private let refreshTimer = GLibTimer()
    private var following: Task<Void, Never>?
    /// How many times "Call API" was clicked: each outcome names its call.
    private var apiCalls = 0
    /// Whether the details show a failure that a later state ends — the keyring's, a refresh's: the next state that
    /// is no failure (signed in with a valid token, signed out) clears it.
    private var showsFailure = false

    init(session: Session) {
        self.session = session
    }

    /// Builds the window, shows it, and starts following the item.
    func start(in application: UnsafeMutablePointer<GtkApplication>) {
        window = MainWindow(application: application, actions: MainWindow.Actions(
            signIn: { [unowned self] in signIn() },
            callAPI: { [unowned self] in callAPI() },
            signOut: { [unowned self] in signOut() },
            cancelSignIn: { [unowned self] in signingIn?.cancel() }))
        window.present()
        // snippet.states
        // The session's states: the first once the keyring was read (an unlock prompt waits for the user first: the
        // window says "Looking for a saved sign-in…" meanwhile, with Sign in disabled), then each change, here or in
        // another process (`tokenctl logout`, the keyring unlocked). Each is shown as it comes, without reading the
        // keyring again.
        let states = session.auth.states
        following = Task {
            for await state in states { await present(state) }
        }
        // snippet.end
    }

    // snippet.present
    /// Shows a state of the session. A keyring that cannot be read is not "signed out": the window says so and
    /// waits (the states stream tells when it is unlocked). Signed in, it makes sure of a valid token first.
    private func present(_ state: AuthSession.State) async {
        switch state {
        case .signedIn(let account):
            await refreshNow(account.displayName)
        case .signedOut:
            clearFailure()
            show(nil)
        case .signInRequired(_, let reason):
            window.showDetail("Sign in again: \(reason)")
            show(nil)
        case .unavailable(let error):
            showUnavailable(error)
        }
    }
    // snippet.end

    /// Reads the session's state again and shows it: after an API call found the session ended.
    private func reload() async {
        await present(await session.auth.state())
    }

    private func show(_ state: Session.SignedIn?) {
        signedIn = state
        window.show(signedIn: state?.name, busy: busy)
        scheduleRefresh()
    }

    /// The keyring cannot be read — locked, not running, not answering: nothing can be done until it can, and
    /// nothing is known about who is signed in.
    private func showUnavailable(_ error: KeyringError) {
        signedIn = nil
        showsFailure = true
        refreshTimer.cancel()
        window.showUnavailable(
            error.code == .locked ? "The keyring is locked" : "The keyring cannot be used", detail: "\(error)")
    }

    // snippet.refresh
    /// The background refresh: a GLib timeout at the moment the token enters the manager's leeway, and none while
    /// nobody is signed in.
    private func scheduleRefresh() {
        guard let name = signedIn?.name, let due = signedIn?.refreshDue else {
            refreshTimer.cancel()
            return
        }
        refreshTimer.schedule(at: due) { [unowned self] in
            Task { await refreshNow(name) }
        }
    }
    // snippet.end

    // snippet.refreshNow
    /// Makes sure `name`'s access token is valid, refreshing it when due, and shows the outcome. A refresh that
    /// failed for now — the network, the provider — leaves the user signed in with the tokens kept: the window says
    /// so and tries again in a minute (the manager backs off on its own too).
    private func refreshNow(_ name: String) async {
        do {
            let state = try await session.signedIn(name)
            clearFailure()
            show(state)
        } catch where Session.needsSignIn(error) {
            window.showDetail("Sign in again: \(error)")
            show(nil)
        } catch let error as KeyringError {
            showUnavailable(error)
        } catch {
            window.showDetail("Could not refresh: \(error)")
            showsFailure = true
            show(Session.SignedIn(name: name, refreshDue: Date(timeIntervalSinceNow: 60)))
        }
    }
    // snippet.end

    /// Empties the details when they show a failure that is over.
    private func clearFailure() {
        if showsFailure { window.showDetail("") }
        showsFailure = false
    }

    // snippet.signIn
    /// Signs in; Cancel gives the sign-in up (the user closed the browser's tab, or will not enter the code): the
    /// task's cancellation stops the listener or the polling, and the sign-in ends with `CancellationError`.
    private func signIn() {
        guard signedIn == nil, !busy else { return }
        busy = true
        window.show(signedIn: nil, busy: true)
        window.showProgress("Signing in…")
        window.showDetail("")
        window.showCancel(true)
        signingIn = Task {
            defer {
                signingIn = nil
                window.showCancel(false)
            }
            do {
                // The hooks run here, on GTK's thread: the sign-in is called from it.
                let account = try await session.auth.signIn(
                    showCode: { [unowned self] prompt in
                        window.showDetail(
                            "No browser could be opened. Open \(prompt.verificationURI.absoluteString) "
                                + "and enter the code \(prompt.userCode)")
                    },
                    openBrowser: { [unowned self] url in
                        window.showDetail("Continue in your browser: \(url.absoluteString)")
                        try await SystemBrowser(portal: { url in try await DesktopPortal.openURI(url) }).open(url)
                    })
                let state = try await session.signedIn(account.displayName)
                busy = false
                window.showDetail("")
                show(state)
            } catch is CancellationError {
                busy = false
                window.showDetail("Sign-in cancelled.")
                await reload()  // signed out, unless the tokens were stored just before the click
            } catch {
                busy = false
                window.showDetail("Sign-in failed: \(error)")
                show(nil)
            }
        }
    }
    // snippet.end

    // snippet.callAPI
    /// An authorized request through the callback API: its completion is isolated to `GLibMainActor`, so it runs
    /// here, on GTK's thread.
    private func callAPI() {
        apiCalls += 1
        let call = apiCalls
        Task {
            guard let client = try? await session.auth.client() else { return }
            window.showDetail("API call \(call): calling…")
            let url = session.settings.apiURL
            client.send(HTTPRequest(method: .get, url: url)) { @GLibMainActor [unowned self] result in
                switch result {
                case .success(let (response, _)):
                    window.showDetail("API call \(call): answered \(response.status.code)")
                case .failure(let error) where Session.needsSignIn(error):
                    window.showDetail("API call \(call) failed: sign in again (\(error))")
                    Task { await reload() }
                case .failure(let error):
                    window.showDetail("API call \(call) failed: \(error)")
                }
            }
        }
    }
    // snippet.end

    private func signOut() {
        guard signedIn != nil, !busy else { return }
        busy = true
        window.show(signedIn: signedIn?.name, busy: true)
        window.showProgress("Signing out…")
        Task {
            do {
                let revocation = try await session.auth.signOut().revocation
                busy = false
                switch revocation {
                case .failed(let error): window.showDetail("Signed out here; the server could not be told: \(error)")
                case .revoked: window.showDetail("Signed out; the server revoked the tokens.")
                case .notConfigured: window.showDetail("Signed out.")
                }
                show(nil)
            } catch {
                busy = false
                window.showDetail("Sign-out failed: \(error)")
                await reload()
            }
        }
    }
}
