import CGLib
import Foundation
import Synchronization
import TestSupport
import Testing
import TokenAuthGLib

/// An actor whose jobs run on a private GLib context's executor.
actor OnContext {
    nonisolated let executor: GLibMainContextExecutor
    private(set) var order: [Int] = []
    private(set) var threads: [pthread_t] = []

    init(_ executor: GLibMainContextExecutor) {
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func record(_ index: Int) {
        order.append(index)
        threads.append(pthread_self())
    }

    /// Starts one task per index, each enqueued on this actor's executor as it is created, in index order.
    func startTasks(_ count: Int) {
        for index in 0..<count {
            Task { self.record(index) }
        }
    }
}

@Suite("GLibMainContextExecutor on a private context")
struct GLibMainContextExecutorTests {
    @Test("jobs run on the thread that iterates the context, in the order they were enqueued")
    func jobsRunInOrderOnTheLoopThread() async throws {
        let context = g_main_context_new()!
        defer { g_main_context_unref(context) }
        let loop = LoopThread(context: context)
        try await loop.start()
        let actor = OnContext(GLibMainContextExecutor(context: context))

        await actor.startTasks(500)
        try await waitUntil("500 jobs to run") { await actor.order.count == 500 }

        #expect(await actor.order == Array(0..<500))
        let threads = await actor.threads
        #expect(threads.allSatisfy { pthread_equal($0, loop.thread!) != 0 })
        await loop.stop()
    }

    @Test("an idle executor leaves no source on its context: the loop has nothing to wake for")
    func idleLeavesNoSource() async throws {
        let context = g_main_context_new()!
        defer { g_main_context_unref(context) }
        let loop = LoopThread(context: context)
        try await loop.start()
        let actor = OnContext(GLibMainContextExecutor(context: context))
        await actor.startTasks(20)
        try await waitUntil("20 jobs to run") { await actor.order.count == 20 }
        await loop.stop()

        // The loop's thread left the context: this thread may look at it. No source is ready, none is attached.
        #expect(g_main_context_pending(context) == 0)
        let executor = Unmanaged.passUnretained(actor.executor).toOpaque()
        #expect(g_main_context_find_source_by_user_data(context, executor) == nil)
    }
}
