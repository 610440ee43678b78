#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth
import TokenAuthSignIn

/// ``AuthSession/SignInMethod/automatic`` with a provider that offers both flows: the browser first, and the device
/// flow's code beside it when the browser does not come back in time.
extension AuthSession {
    /// What one of the sign-in's concurrent parts came back with.
    private enum Arrival: Sendable {
        case browser(StoredCredentials)
        case code(StoredCredentials)
        case failed(any Error)
        case fallbackDue
    }

    /// Opens the browser, its page address handed to `showPage` first. Where no browser could be started, the code
    /// follows at once; where one started but has not come back within ``Configuration/browserFallback``, the code is
    /// shown too, and the first flow that signs in wins — the other is abandoned.
    func signInWithBrowserOrCode(
        _ metadata: AuthorizationServerMetadata,
        isolation: isolated (any Actor)? = #isolation,
        showCode: (DeviceAuthorization.Prompt) -> Void,
        showPage: (URL) -> Void,
        openBrowser: ((URL) async throws -> Void)?
    ) async throws -> StoredCredentials {
        let started = try await beginBrowserSignIn(metadata)
        try Task.checkCancellation()
        showPage(started.url)
        // What each part comes back with, taken here, on the caller's isolation, where the hooks must run: the parts
        // themselves are tasks of their own, which only wait for the network.
        let (arrivals, arrive) = AsyncStream<Arrival>.makeStream()
        var parts = [Task {
            // Listening while the browser is opened: a hook may wait for the page it opened.
            do { arrive.yield(.browser(try await started.finish().credentials)) } catch { arrive.yield(.failed(error)) }
        }]
        defer { for part in parts { part.cancel() } }
        do {
            try await open(started, openBrowser: openBrowser)
        } catch let error as SignInError where [.noGraphicalSession, .browserNotStarted].contains(error.code) {
            // No browser could be started after all: a code to enter on another device.
            logger.debug("no browser could be started; showing a code instead")
            return try await signInWithCode(metadata, showCode: showCode)
        }
        if let fallback = configuration.browserFallback {
            let clock = configuration.clock
            parts.append(Task {
                try? await clock.sleep(for: fallback)
                arrive.yield(.fallbackDue)
            })
        }
        var pending = 1
        var lastFailure: (any Error)?
        waiting: for await arrival in arrivals {
            switch arrival {
            case .browser(let credentials):
                return credentials
            case .code(let credentials):
                await started.abandon()
                return credentials
            case .failed(let error):
                pending -= 1
                lastFailure = error
                if pending == 0 || Task.isCancelled { break waiting }
                logger.debug("one way of signing in ended; waiting for the other", metadata: [
                    "error": "\(LogRedaction.error(error))",
                ])
            case .fallbackDue where !Task.isCancelled && pending == 1:
                logger.debug("the browser has not come back; showing a code as well")
                do {
                    let code = try await beginCodeSignIn(metadata)
                    try Task.checkCancellation()
                    showCode(code.prompt)
                    pending += 1
                    parts.append(Task {
                        do { arrive.yield(.code(try await code.finish())) } catch { arrive.yield(.failed(error)) }
                    })
                } catch is CancellationError {
                    break waiting
                } catch {
                    // The browser may still come back.
                    logger.debug("the device flow could not start", metadata: ["error": "\(LogRedaction.error(error))"])
                }
            case .fallbackDue:
                break
            }
        }
        await started.abandon()
        if Task.isCancelled { throw CancellationError() }
        throw lastFailure ?? CancellationError()
    }
}
