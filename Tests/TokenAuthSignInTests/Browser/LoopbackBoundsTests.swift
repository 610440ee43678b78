import Foundation
import TestSupport
import Testing
import TokenAuthTesting
@testable import TokenAuthSignIn
#if canImport(Glibc)
import Glibc
#endif

/// The loopback listener against other local processes: connections that send nothing, too many connections, a
/// request with a large body. Each is proven by what a raw TCP client sees (the connection closed), with the
/// listener's clock moved by hand.
@Suite("The loopback listener's bounds", .timeLimit(.minutes(1)))
struct LoopbackBoundsTests {
    /// A listener waiting on `/callback` with `clock`, whose handler ends the wait on the first request; `body`
    /// runs beside it, then the wait is cancelled.
    private func withListener(
        clock: ManualClock, _ body: (LoopbackRedirectListener, Task<String, any Error>) async throws -> Void
    ) async throws {
        let listener = try await LoopbackRedirectListener.bind(port: 0, path: "/callback")
        let waiting = Task {
            try await listener.receive(timeLimit: .seconds(300), clock: clock, timedOut: { CancellationError() }) { _ in
                .finish(.signedIn, .success("redirected"))
            }
        }
        defer { waiting.cancel() }
        try await waitUntil("the listener waits for its time limit") { clock.sleeps.count >= 1 }
        try await body(listener, waiting)
    }

    /// Sends the redirect until the listener takes it — a connection closed unanswered (one that came in before
    /// the listener counted a closed one out) is tried again — and returns what the wait ended with, within a bound.
    private func redirect(to listener: LoopbackRedirectListener, ending waiting: Task<String, any Error>) async throws -> String {
        let ended = LoopbackConnectionBounds.Arrival()
        let watcher = Task {
            _ = try? await waiting.value
            ended.mark()
        }
        defer { watcher.cancel() }
        var browser = try RawConnection(port: listener.port)
        try browser.send("GET /callback?code=c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try await waitUntil("the listener took the redirect") {
            if ended.hasArrived { return true }
            if browser.isClosedByPeer(), !browser.receivedAnything, let again = try? RawConnection(port: listener.port) {
                browser = again
                try? browser.send("GET /callback?code=c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            }
            return false
        }
        return try await waiting.value
    }

    @Test("a connection that sends nothing is closed at the idle limit, and the redirect still arrives")
    func idleConnection() async throws {
        let clock = ManualClock()
        try await withListener(clock: clock) { listener, waiting in
            let idle = try RawConnection(port: listener.port)
            try await waitUntil("the connection's idle limit started") { clock.sleeps.count >= 2 }
            #expect(clock.sleeps.last == LoopbackConnectionBounds.idleLimit)
            #expect(!idle.isClosedByPeer())
            clock.advance(by: LoopbackConnectionBounds.idleLimit)
            try await waitUntil("the idle connection was closed") { idle.isClosedByPeer() }

            #expect(try await redirect(to: listener, ending: waiting) == "redirected")
        }
    }

    @Test("connections beyond the bound are closed at once; once the idle ones are closed, a redirect gets in")
    func tooManyConnections() async throws {
        let clock = ManualClock()
        try await withListener(clock: clock) { listener, waiting in
            var idle: [RawConnection] = []
            for _ in 0..<LoopbackConnectionBounds.maximumConnections { idle.append(try RawConnection(port: listener.port)) }
            try await waitUntil("every connection's idle limit started") {
                clock.sleeps.count >= 1 + LoopbackConnectionBounds.maximumConnections
            }
            let extra = try RawConnection(port: listener.port)
            try await waitUntil("the connection beyond the bound was closed") { extra.isClosedByPeer() }
            #expect(idle.allSatisfy { !$0.isClosedByPeer() })

            clock.advance(by: LoopbackConnectionBounds.idleLimit)
            try await waitUntil("the idle connections were closed") { idle.allSatisfy { $0.isClosedByPeer() } }
            #expect(try await redirect(to: listener, ending: waiting) == "redirected")
        }
    }

    @Test("a request with a body larger than the bound is closed unanswered and ends nothing")
    func largeBody() async throws {
        let clock = ManualClock()
        try await withListener(clock: clock) { listener, waiting in
            let sender = try RawConnection(port: listener.port)
            let size = LoopbackConnectionBounds.maximumBodySize * 4
            try sender.send("GET /callback?code=c HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(size)\r\n\r\n")
            // The listener may close before all of it is sent.
            try? sender.send(String(repeating: "x", count: LoopbackConnectionBounds.maximumBodySize + 1))
            try await waitUntil("the connection with the large body was closed") { sender.isClosedByPeer() }
            #expect(!sender.receivedAnything, "closed unanswered")
            // The wait goes on: a proper redirect still ends it.
            #expect(try await redirect(to: listener, ending: waiting) == "redirected")
        }
    }
}

/// A TCP client socket to 127.0.0.1, non-blocking for reads: whether the peer closed, and whether it said anything.
final class RawConnection: @unchecked Sendable {
    // @unchecked Sendable: the descriptor is set once in init and closed once in deinit; `receivedAnything` is
    // only written by `isClosedByPeer()`, which the tests call from one task at a time (waitUntil polls serially).
    private let descriptor: Int32
    private(set) var receivedAnything = false

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeMutableBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EAGAIN { usleep(1000); continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            offset += sent
        }
    }

    /// Whether the peer closed the connection (a read gives end of file or a reset); reads what is there.
    func isClosedByPeer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if count > 0 {
                receivedAnything = true
                continue
            }
            if count == 0 { return true }
            return errno == ECONNRESET
        }
    }
}
