import CGtk
import Foundation
import TokenAuthGLib

/// A one-shot timer on GLib's default main context, the one GTK's thread runs: `g_timeout_add_seconds` wakes the
/// loop once, when it is due, and nothing before — how the window refreshes in the background without polling.
@GLibMainActor
final class GLibTimer {
    private var source: guint = 0
    private var action: (@GLibMainActor () -> Void)?

    /// Runs `action` on GTK's thread at `date` (at once when it is past), replacing the one scheduled before.
    func schedule(at date: Date, _ action: @escaping @GLibMainActor () -> Void) {
        cancel()
        self.action = action
        let seconds = max(0, date.timeIntervalSinceNow.rounded(.up))
        let delay = guint(min(seconds, Double(UInt32.max / 2)))
        source = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, delay, { data in
            GLibMainActor.assumeIsolated {
                let timer = Unmanaged<GLibTimer>.fromOpaque(data!).takeUnretainedValue()
                timer.source = 0
                let action = timer.action
                timer.action = nil
                action?()
            }
            return gboolean(G_SOURCE_REMOVE)
        }, Unmanaged.passRetained(self).toOpaque(), { data in
            Unmanaged<GLibTimer>.fromOpaque(data!).release()
        })
    }

    /// Removes the pending timeout, if any.
    func cancel() {
        if source != 0 { g_source_remove(source) }
        source = 0
        action = nil
    }
}
