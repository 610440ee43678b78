import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import TokenAuth

/// The per-task URLSession delegate of ``URLSessionHTTPTransport``: enforces the body-size limit while the response
/// arrives, and keeps the response it saw.
///
/// - The transfer is cancelled as soon as the announced `Content-Length` or the bytes received pass the limit, so
///   an oversized body is never read to the end. The transport still checks the size of what it gets, so the
///   limit holds even when a cancellation loses a race with the last bytes.
/// - A transfer its caller abandoned (``cancelTransfer()``) is cancelled as soon as its task is known, that is when
///   its response head arrives: FoundationNetworking's `data(for:delegate:)` hands out no task before that.
/// - The head, and the body of a `401`, are kept because FoundationNetworking cannot deliver a `401` with a `Basic` or `Digest`
///   challenge: it turns it into an authentication challenge, which ``SessionDelegate`` cancels (answering it
///   would hang the task). The transport then returns the head and body kept here instead of the cancellation.
final class ResponseCollector: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var response: HTTPURLResponse?
        /// The body of a 401, the only one the transport may need from here; other bodies are only counted.
        var body = Data()
        var received = 0
        var exceeded = false
        /// The transfer's task, once its response head arrived.
        var task: URLSessionDataTask?
        var abandoned = false
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether the body passed the limit and the task was cancelled for it.
    var exceeded: Bool {
        state.withLock { $0.exceeded }
    }

    /// The response head, and the body received so far when the status is 401.
    var received: (response: HTTPURLResponse?, body: Data) {
        state.withLock { ($0.response, $0.body) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = response.expectedContentLength > Int64(limit)
        let abandoned = state.withLock { state in
            state = State(response: response as? HTTPURLResponse, exceeded: tooLarge, task: dataTask, abandoned: state.abandoned)
            return state.abandoned
        }
        completionHandler(tooLarge || abandoned ? .cancel : .allow)
        // FoundationNetworking ignores the disposition; an abandoned transfer is cancelled here.
        if abandoned { dataTask.cancel() }
    }

    /// The caller gave up on the transfer: cancels its task now if it is known, or when its response head arrives.
    /// Called from a thread that holds no lock of Swift's (see `abandoningOnCancellation`).
    func cancelTransfer() {
        let task = state.withLock { state in
            state.abandoned = true
            return state.task
        }
        task?.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = state.withLock { state in
            guard !state.exceeded else { return false }
            state.received += data.count
            guard state.received <= limit else {
                state.exceeded = true
                state.body = Data()
                return true
            }
            if state.response?.statusCode == 401 {
                state.body.append(data)
            }
            return false
        }
        if cancel {
            dataTask.cancel()
        }
    }
}
