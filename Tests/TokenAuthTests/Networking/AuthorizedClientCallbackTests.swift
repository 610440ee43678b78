import Dispatch
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
import OAuthTestSupport
import Synchronization
import Testing
@testable import TokenAuth
import TokenAuthTesting

@Suite("AuthorizedClient's callback API")
struct AuthorizedClientCallbackTests {
    /// What one completion handler saw.
    struct Completion: Sendable {
        let index: Int
        let status: Int?
        let error: (any Error)?
        let onRequestedQueue: Bool
    }

    private static let queueKey = DispatchSpecificKey<String>()

    private func makeQueue() -> DispatchQueue {
        let queue = DispatchQueue(label: "callback-tests")
        queue.setSpecific(key: Self.queueKey, value: "callback-tests")
        return queue
    }

    /// Submits one request per path through the callback API and waits for all completions.
    private func submit(
        _ client: AuthorizedClient, paths: [URL], queue: DispatchQueue,
        afterSubmitting: ([CallbackRequest]) -> Void = { _ in }
    ) async -> [Completion] {
        let (completions, sink) = AsyncStream.makeStream(of: Completion.self)
        var handles: [CallbackRequest] = []
        for (index, url) in paths.enumerated() {
            handles.append(client.send(HTTPRequest(method: .get, url: url), queue: queue) { result in
                let onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == "callback-tests"
                switch result {
                case .success(let (response, _)):
                    sink.yield(Completion(index: index, status: response.status.code, error: nil, onRequestedQueue: onQueue))
                case .failure(let error):
                    sink.yield(Completion(index: index, status: nil, error: error, onRequestedQueue: onQueue))
                }
            })
        }
        afterSubmitting(handles)
        var seen: [Completion] = []
        for await completion in completions {
            seen.append(completion)
            if seen.count == paths.count { break }
        }
        return seen.sorted { $0.index < $1.index }
    }

    @Test("completions run on the requested queue; requests held during a refresh reach the transport after it, in order")
    func heldDuringRefreshAndOrdered() async throws {
        try await RefreshFixture.with { fixture in
            // The refresh cannot finish before every request has been submitted.
            fixture.server.holdTokenAnswers()
            let recorder = RecordingTransport(passingTo: fixture.transport)
            let (client, store) = fixture.authorizedClient(fixture.seed(expiresIn: -10), transport: recorder)
            let paths = (0..<12).map { fixture.server.url("/resource/\($0)") }

            let completions = await submit(client, paths: paths, queue: makeQueue()) { _ in
                fixture.server.releaseTokenAnswers()
            }

            #expect(completions.map(\.status) == Array(repeating: 200, count: 12))
            #expect(completions.allSatisfy { $0.onRequestedQueue })
            #expect(recorder.handedRequests.map { $0.path ?? "" } == (0..<12).map { "/resource/\($0)" })
            #expect(fixture.server.stats.refreshGrants == 1)
            // None left with the expired token: each was held until the refresh was done.
            let current = try #require(store.current)
            #expect(fixture.resourceAuthorizations == Array(repeating: "Bearer \(current.accessToken)", count: 12))
        }
    }

    @Test("a callback request cancelled while it waits completes with CancellationError on the queue and is never sent")
    func cancelWhileQueued() async throws {
        try await RefreshFixture.with { fixture in
            // The refresh cannot finish before the cancellation.
            fixture.server.holdTokenAnswers()
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: -10))
            let paths = [fixture.server.url("/resource/kept"), fixture.server.url("/resource/cancelled")]

            let completions = await submit(client, paths: paths, queue: makeQueue()) { handles in
                handles[1].cancel()
                fixture.server.releaseTokenAnswers()
            }

            #expect(completions[0].status == 200)
            let cancelledError = completions[1].error
            #expect(cancelledError is CancellationError)
            #expect(completions.allSatisfy { $0.onRequestedQueue })
            #expect(fixture.server.recordedRequests.filter { $0.uri.hasPrefix("/resource") }.map(\.uri) == ["/resource/kept"])
        }
    }

    @Test("loginRequired reaches the completion handler as a distinct error")
    func loginRequiredThroughCallback() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(nil)

            let completions = await submit(client, paths: [fixture.server.resourceURL], queue: makeQueue())

            #expect((completions.first?.error as? TokenAuthError)?.isLoginRequired == true)
            #expect(completions.first?.onRequestedQueue == true)
            #expect(fixture.server.stats.resourceRequests == 0)
        }
    }
}
