import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import TokenAuth

/// The redirect target of a browser sign-in (RFC 8252 §7.3): an HTTP listener on `127.0.0.1` that waits for the
/// browser to come back with the authorization response.
///
/// It is built on swift-nio's HTTP/1 server pipeline, which parses the requests. Every connection gets one answer
/// and is closed, within the bounds of ``LoopbackConnectionBounds`` (how many at once, how long idle, how large).
/// Requests for any other path get a 404; requests on the path go to the caller's handler, which
/// either answers and keeps waiting (a response that belongs to no sign-in in progress), answers and ends the
/// wait with a result, or takes the answer and completes it outside the time limit (a code exchange). The listening
/// socket is closed on every way out of ``receive(timeLimit:clock:timedOut:_:)``: a result, an error, the time
/// limit and cancellation.
struct LoopbackRedirectListener: Sendable {
    /// What the handler decided about a request on the redirect path.
    enum Decision<Success: Sendable>: Sendable {
        /// Answer with `page` and go on waiting.
        case keepWaiting(RedirectPage)
        /// Answer with `page`, then end the wait with `outcome`.
        case finish(RedirectPage, Result<Success, any Error>)
        /// This request is the answer: the time limit stops applying, `complete` runs to its own end (a code
        /// exchange, up to the transport's timeout), then its page is written and its outcome ends the wait. When
        /// the time limit passed first, `complete` does not run and the browser is told the sign-in timed out.
        case answer(@Sendable () async -> (RedirectPage, Result<Success, any Error>))
    }

    /// A request the browser sent to the redirect path.
    struct Request: Sendable {
        /// The query parameters in order, percent-decoded; a name may appear more than once.
        var parameters: [(name: String, value: String)]

        /// The value of `name` when it appears exactly once; `nil` when absent or repeated.
        func single(_ name: String) -> String? {
            let values = parameters.filter { $0.name == name }
            return values.count == 1 ? values[0].value : nil
        }

        /// How many times `name` appears.
        func count(of name: String) -> Int { parameters.filter { $0.name == name }.count }
    }

    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The port the listener is bound to (the ephemeral one the system chose when 0 was asked for).
    let port: Int
    /// The path the redirect must arrive at, such as `/callback`.
    let path: String
    private let server: NIOAsyncChannel<Connection, Never>

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/PATH` (RFC 8252 §7.3).
    var redirectURI: URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Binds `127.0.0.1:port` (0: an ephemeral port).
    ///
    /// - Throws: The system's error when the port cannot be bound, for example because it is in use.
    static func bind(port: Int, path: String) async throws -> LoopbackRedirectListener {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        guard let bound = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return LoopbackRedirectListener(port: bound, path: path, server: server)
    }

    /// Closes the listening socket without waiting for a redirect.
    func close() async {
        try? await server.channel.close()
    }

    /// Serves requests until `handle` finishes the wait, or `timeLimit` passes by `clock` before a request took the
    /// answer (``Decision/answer(_:)``), then closes the listener.
    ///
    /// - Throws: What `handle` finished with; `timedOut()` when the time limit passed first; `CancellationError`
    ///   when the calling task is cancelled.
    func receive<Success: Sendable>(
        timeLimit: Duration,
        clock: any Clock<Duration>,
        timedOut: @escaping @Sendable () -> any Error,
        _ handle: @escaping @Sendable (Request) async -> Decision<Success>
    ) async throws -> Success {
        let (outcomes, finish) = AsyncStream<Result<Success, any Error>>.makeStream()
        let path = self.path
        let limit = RedirectTimeLimit()
        let bounds = LoopbackConnectionBounds()
        defer { finish.finish() }
        do {
            let outcome: Result<Success, any Error> = try await server.executeThenClose { connections in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await withThrowingDiscardingTaskGroup { serving in
                            for try await connection in connections {
                                guard bounds.admit() else {
                                    // Closed unread, through its own close so that its writer is finished.
                                    serving.addTask { try? await connection.executeThenClose { _, _ in } }
                                    continue
                                }
                                serving.addTask {
                                    defer { bounds.release() }
                                    await Self.serveWithinIdleLimit(clock: clock) { arrival in
                                        try await Self.serve(
                                            connection, path: path, limit: limit, arrival: arrival, handle: handle,
                                            finish: finish)
                                    }
                                }
                            }
                        }
                    }
                    group.addTask {
                        try await clock.sleep(for: timeLimit)
                        if limit.pass() { finish.yield(.failure(timedOut())) }
                    }
                    var iterator = outcomes.makeAsyncIterator()
                    let first = await iterator.next()
                    group.cancelAll()
                    guard let first else { throw CancellationError() }
                    return first
                }
            }
            return try outcome.get()
        } catch {
            try? await server.channel.close()
            throw error
        }
    }

    /// Runs `serve` for one connection, and closes it (cancels `serve`) when its request has not arrived within
    /// ``LoopbackConnectionBounds/idleLimit`` by `clock`.
    private static func serveWithinIdleLimit(
        clock: any Clock<Duration>, _ serve: @escaping @Sendable (LoopbackConnectionBounds.Arrival) async throws -> Void
    ) async {
        let arrival = LoopbackConnectionBounds.Arrival()
        try? await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await serve(arrival)
                return true
            }
            group.addTask {
                try await clock.sleep(for: LoopbackConnectionBounds.idleLimit)
                return false
            }
            // Served: done. The idle limit passed: done too, unless the request arrived and is being answered.
            while let served = try await group.next() {
                if served || !arrival.hasArrived {
                    group.cancelAll()
                    return
                }
            }
        }
    }

    /// Answers each request of one connection; a finishing answer is written before the outcome is reported, so
    /// the browser gets its page even though the listener closes right after.
    private static func serve<Success: Sendable>(
        _ connection: Connection,
        path: String,
        limit: RedirectTimeLimit,
        arrival: LoopbackConnectionBounds.Arrival,
        handle: @Sendable (Request) async -> Decision<Success>,
        finish: AsyncStream<Result<Success, any Error>>.Continuation
    ) async throws {
        try await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var bodySize = 0
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                case .body(let chunk):
                    // A redirect has no body: a large one is not read to its end but closed unanswered.
                    bodySize += chunk.readableBytes
                    if bodySize > LoopbackConnectionBounds.maximumBodySize { return }
                case .end:
                    guard let received = head else { continue }
                    head = nil
                    arrival.mark()
                    guard received.method == .GET || received.method == .HEAD,
                        let request = Request(target: received.uri, path: path)
                    else {
                        try await write(.notFound, to: outbound, head: received)
                        return
                    }
                    switch await handle(request) {
                    case .keepWaiting(let page):
                        try await write(page, to: outbound, head: received)
                    case .finish(let page, let outcome):
                        try? await write(page, to: outbound, head: received)
                        finish.yield(outcome)
                    case .answer(let complete):
                        guard limit.stop() else {
                            try await write(.timedOut, to: outbound, head: received)
                            return
                        }
                        let (page, outcome) = await complete()
                        try? await write(page, to: outbound, head: received)
                        finish.yield(outcome)
                    }
                    return
                }
            }
        }
    }

    private static func write(
        _ page: RedirectPage,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        head request: HTTPRequestHead
    ) async throws {
        let body = ByteBuffer(string: page.html)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: request.version, status: page.status, headers: headers)
        try await outbound.write(.head(head))
        if request.method != .HEAD {
            try await outbound.write(.body(.byteBuffer(body)))
        }
        try await outbound.write(.end(nil))
    }
}
