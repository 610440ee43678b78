import CGtk
import Synchronization

/// Measures how long GTK's thread goes without returning to its main loop's poll: the longest stretch between the
/// end of one poll and the start of the next (what the loop spent dispatching: handlers, jobs of `GLibMainActor`,
/// redraws). A stall of the window is such a stretch. `--report-main-loop` prints it when the app ends.
///
/// A GLib source that is never ready and never dispatched: its `prepare` and `check` run in every iteration, before
/// and after the poll, and it asks for no timeout, so it wakes the loop for nothing.
enum MainLoopWatch {
    private struct State {
        var lastCheck: gint64 = 0
        var longest: gint64 = 0
        var iterations = 0
    }

    private static let state = Mutex(State())

    /// GLib keeps a pointer to the functions for the source's lifetime (the process's): allocated once, never freed.
    /// `nonisolated(unsafe)`: written once, by the lazy initialisation Swift makes thread-safe; only read after.
    private nonisolated(unsafe) static let functions: UnsafeMutablePointer<GSourceFuncs> = {
        let functions = UnsafeMutablePointer<GSourceFuncs>.allocate(capacity: 1)
        functions.initialize(to: GSourceFuncs(
            prepare: { _, timeout in
                timeout?.pointee = -1
                let now = g_get_monotonic_time()
                state.withLock { state in
                    if state.lastCheck != 0 { state.longest = max(state.longest, now - state.lastCheck) }
                    state.iterations += 1
                }
                return 0
            },
            check: { _ in
                let now = g_get_monotonic_time()
                state.withLock { $0.lastCheck = now }
                return 0
            },
            dispatch: { _, _, _ in gboolean(G_SOURCE_CONTINUE) },
            finalize: nil, closure_callback: nil, closure_marshal: nil))
        return functions
    }()

    /// Starts watching the default main context.
    static func start() {
        let source = g_source_new(functions, guint(MemoryLayout<GSource>.size))
        g_source_set_name(source, "DesktopApp main loop watch")
        g_source_attach(source, nil)
        g_source_unref(source)
    }

    /// "main loop: N iterations, longest stretch without polling M ms".
    static var report: String {
        state.withLock { state in
            "main loop: \(state.iterations) iterations, longest stretch without polling \(state.longest / 1000) ms"
        }
    }
}
