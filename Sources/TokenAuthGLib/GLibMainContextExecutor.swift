import CGLib
import Synchronization

/// Runs Swift jobs on a GLib main context: on the thread that iterates it, one at a time, in the order they came,
/// and only while that thread iterates it.
///
/// A GTK app's thread runs GLib's main loop (`g_application_run`), not Swift's: on Linux neither the main actor nor
/// `DispatchQueue.main` is drained under it, so work sent there never runs. This executor hands each job to the
/// context as a GLib source instead, so code isolated to it — ``GLibMainActor``, on ``main`` — runs between GTK's
/// events, on GTK's thread, and an `await` in it returns there.
///
/// ```swift
/// @GLibMainActor func showAnswer() async {
///     status.text = "Calling…"
///     let answer = try? await api.send(HTTPRequest(method: .get, url: url))  // off GTK's thread
///     status.text = answer.map { "The API answered \($0.0.status)" } ?? "The call failed"  // back on it
/// }
/// ```
///
/// Jobs wait in a queue of the executor's own, and one idle source at `G_PRIORITY_DEFAULT` (the priority of GTK's
/// input events, of `g_main_context_invoke` and of GIO's asynchronous results) runs them, one per dispatch, so GTK's
/// input events come in between. Redraws, at the lower `GDK_PRIORITY_REDRAW`, come once the queue is empty, as after
/// any source at that priority: keep a job short, and do not enqueue jobs without end. It is attached when the first job arrives and removed when the queue is empty: an idle app has no source
/// pending and wakes for nothing. Not `g_main_context_invoke`: on a thread that owns the context, or can acquire the
/// default context because nobody iterates it, that calls the function right away — a job would run nested inside
/// the job that enqueued it, or on a thread that is not the loop's.
public final class GLibMainContextExecutor: SerialExecutor, Sendable {
    /// The global-default main context's executor: the context `g_application_run` iterates on GTK's thread.
    public static let main = GLibMainContextExecutor(context: g_main_context_default())

    /// The jobs not yet run, and whether a source is attached to run them.
    private struct Queue: ~Copyable {
        private var jobs: [UnownedJob] = []
        private var head = 0
        /// Whether an idle source is attached (or about to be) that will run the next job.
        var scheduled = false

        var isEmpty: Bool { head == jobs.count }

        mutating func append(_ job: UnownedJob) { jobs.append(job) }

        mutating func popFirst() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.count <= 64)
                head = 0
            }
            return job
        }
    }

    /// The context, referenced for the executor's lifetime.
    ///
    /// `nonisolated(unsafe)` because `OpaquePointer` is not `Sendable`; it is safe to share: the pointer is never
    /// changed, and GLib makes a `GMainContext` safe to use from any thread — `g_source_attach` and
    /// `g_main_context_is_owner`, all this executor calls on it from other threads, take the context's own lock.
    private nonisolated(unsafe) let context: OpaquePointer
    private let queue = Mutex(Queue())

    /// An executor for `context`, a `GMainContext *` (from `g_main_context_new()`, say), which it references until
    /// it is released. The thread that iterates `context` runs the jobs.
    public init(context: OpaquePointer) {
        self.context = g_main_context_ref(context)
    }

    deinit {
        g_main_context_unref(context)
    }

    /// Queues `job` to run on the context's thread after the jobs queued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let attach = queue.withLock { queue -> Bool in
            queue.append(job)
            guard !queue.scheduled else { return false }
            queue.scheduled = true
            return true
        }
        if attach { attachSource() }
    }

    /// Whether the current thread runs this executor's jobs: the thread that owns (iterates) the context. Lets
    /// `assumeIsolated` and `preconditionIsolated` pass in GTK's signal handlers, which GLib calls on that thread
    /// outside any Swift job.
    public func checkIsolated() {
        guard g_main_context_is_owner(context) != 0 else {
            fatalError("not on the thread that runs this GLib main context (for GLibMainActor: GTK's thread)")
        }
    }

    /// `true` on the thread that owns (iterates) the context, `false` elsewhere.
    public func isIsolatingCurrentContext() -> Bool? {
        g_main_context_is_owner(context) != 0
    }

    /// Attaches an idle source that runs the queued jobs. The source keeps the executor alive until it is removed.
    private func attachSource() {
        let source = g_idle_source_new()
        defer { g_source_unref(source) }
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_name(source, "TokenAuthGLib jobs")
        g_source_set_callback(
            source, { data in
                Unmanaged<GLibMainContextExecutor>.fromOpaque(data!).takeUnretainedValue().runNextJob()
            }, Unmanaged.passRetained(self).toOpaque(), { data in
                Unmanaged<GLibMainContextExecutor>.fromOpaque(data!).release()
            })
        g_source_attach(source, context)
    }

    /// Runs the oldest job; keeps the source while more wait, so GTK's events interleave with a long queue.
    private func runNextJob() -> gboolean {
        if let job = queue.withLock({ $0.popFirst() }) {
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
        return queue.withLock { queue in
            guard queue.isEmpty else { return sourceContinue }
            queue.scheduled = false
            return sourceRemove
        }
    }
}

/// GLib's `G_SOURCE_CONTINUE` and `G_SOURCE_REMOVE`: macros over `TRUE` (`!FALSE`), which Swift does not import.
let sourceContinue: gboolean = 1
let sourceRemove: gboolean = 0
