#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// The submission queue of the callback API: takes requests in the order they are submitted, gets each its token
/// in that order, and hands each to the transport in that order.
///
/// Submitting is synchronous (`AsyncStream` keeps the order of `yield`s), and one task works through the queue.
/// For each request it first waits for a valid token — so while a refresh is pending, every request behind it is
/// held — and then starts the request's own task with `Task.immediate`, which runs synchronously up to the
/// transport's first suspension. So requests reach the transport in submission order, and run concurrently from
/// there on; their completions may arrive in any order.
final class CallbackPipeline: Sendable {
    struct Job: Sendable {
        let request: HTTPRequest
        let body: Data?
        let requiresAuthentication: Bool
        let handle: CallbackRequest
    }

    private let continuation: AsyncStream<Job>.Continuation

    init(exchange: AuthorizedExchange, transport: any HTTPTransport) {
        let (jobs, continuation) = AsyncStream.makeStream(of: Job.self)
        self.continuation = continuation
        // The worker holds the stream, the exchange and the transport, not the pipeline: when the last client
        // copy goes, `deinit` finishes the stream and the worker ends after the jobs already submitted.
        Task {
            for await job in jobs {
                await Self.dispatch(job, exchange: exchange, transport: transport)
            }
        }
    }

    deinit {
        continuation.finish()
    }

    func submit(_ job: Job) {
        if case .terminated = continuation.yield(job) {
            job.handle.finish(.failure(CancellationError()))
        }
    }

    private static func dispatch(_ job: Job, exchange: AuthorizedExchange, transport: any HTTPTransport) async {
        guard job.handle.isQueued else { return }
        var auth: Auth?
        if job.requiresAuthentication {
            do {
                try exchange.checkTokenMayBeSent(to: job.request.url)
                auth = try await exchange.validAuth()
            } catch {
                job.handle.finish(.failure(error))
                return
            }
        }
        let operation: @Sendable () async -> Void = { [auth] in
            let result: CallbackRequest.Result
            do {
                result = .success(
                    try await exchange.send(
                        job.request, body: job.body, through: transport, authorizedWith: auth,
                        requiresAuthentication: job.requiresAuthentication))
            } catch {
                result = .failure(error)
            }
            job.handle.finish(result)
        }
        job.handle.start {
            if #available(macOS 26, *) {
                Task.immediate(operation: operation)
            } else {
                Task(operation: operation)
            }
        }
    }
}
