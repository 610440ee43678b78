// DesktopApp: one GTK 4 window that signs in with TokenKeyring, stays signed in and signs out.
//
//   DesktopApp --issuer URL --client-id ID [--service S] [--account A] [--report-main-loop]
//
// GTK's thread runs GLib's main loop (`g_application_run`). On Linux neither the main actor nor DispatchQueue.main
// runs under it, so the window's code is isolated to TokenAuthGLib's GLibMainActor instead: it runs on GTK's thread,
// between GTK's events, and each `await` of the library comes back there. Ends on SIGTERM or SIGINT like on a
// closed window; with --report-main-loop it then prints the longest time GTK's thread went without polling.

import CGtk
import Foundation
import TokenAuthGLib
import TokenKeyring

let usage = """
    usage: DesktopApp --issuer URL --client-id ID [--service NAME] [--account NAME] [--report-main-loop]

    Signs in at the OpenID provider ISSUER as client ID, keeping the tokens in the keyring item (NAME, NAME):
    by default service "desktopapp.example" and account "default".
    """

/// The command line: the settings of the session, and whether to report the main loop's longest stretch.
private func parseArguments(_ arguments: [String]) -> (Session.Settings, reportsMainLoop: Bool) {
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("DesktopApp: \(message)\n\n\(usage)\n".utf8))
        exit(64)
    }
    var issuer: URL?, clientID: String?, service = "desktopapp.example", account = "default", reports = false
    var remaining = arguments[...]
    func value(_ option: String) -> String {
        guard let value = remaining.popFirst() else { fail("\(option) needs a value") }
        return value
    }
    while let option = remaining.popFirst() {
        switch option {
        case "--issuer": issuer = URL(string: value(option))
        case "--client-id": clientID = value(option)
        case "--service": service = value(option)
        case "--account": account = value(option)
        case "--report-main-loop": reports = true
        case "--help", "-h":
            print(usage)
            exit(0)
        default: fail("unknown option \(option)")
        }
    }
    guard let issuer, issuer.scheme != nil else { fail("--issuer needs a URL") }
    guard let clientID else { fail("--client-id is required") }
    return (Session.Settings(issuer: issuer, clientID: clientID, service: service, account: account), reports)
}

/// What the command line asked for, read once.
private let startup = parseArguments(Array(CommandLine.arguments.dropFirst()))

// snippet.activate
/// The application's one controller, made when GTK activates the application.
@GLibMainActor
private enum Application {
    static var controller: Controller?

    /// GTK's "activate": builds the window (once) and, with --report-main-loop, starts watching the main loop.
    static func activate(_ application: UnsafeMutablePointer<GtkApplication>) {
        guard controller == nil else { return }
        controller = Controller(session: Session(startup.0))
        controller?.start(in: application)
        if startup.reportsMainLoop {
            // Watched from the first idle moment on: the window's first layout and frame are GTK's start-up.
            g_idle_add_full(G_PRIORITY_LOW, { _ in
                MainLoopWatch.start()
                return 0  // G_SOURCE_REMOVE
            }, nil, nil)
        }
    }
}
// snippet.end

@main
enum DesktopApp {
    static func main() {
        // snippet.startup
        // First, before the arguments are read: a refresh runs in this program started again, which does only that.
        AuthSession.bootstrap()
        _ = startup
        let application = gtk_application_new("org.tokenkeyring.DesktopApp", G_APPLICATION_NON_UNIQUE)!
        let activate: @convention(c) (UnsafeMutablePointer<GtkApplication>?, UnsafeMutableRawPointer?) -> Void = {
            application, _ in
            // GTK calls this on its thread, where the closure below runs at once: the pointer stays there.
            nonisolated(unsafe) let application = application
            GLibMainActor.assumeIsolated { if let application { Application.activate(application) } }
        }
        connect(application, "activate", unsafeBitCast(activate, to: GCallback.self))
        // SIGTERM and SIGINT end the application as a closed window does: through the loop, so the report is printed.
        for signal in [SIGTERM, SIGINT] {
            g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, { data in
                g_application_quit(data?.assumingMemoryBound(to: GApplication.self))
                return 0  // G_SOURCE_REMOVE
            }, UnsafeMutableRawPointer(application), nil)
        }
        // Only the program's name: GApplication would take --issuer and the others for options of its own.
        var arguments = [strdup(CommandLine.arguments[0])]
        let status = arguments.withUnsafeMutableBufferPointer { arguments in
            g_application_run(gtkCast(application, to: GApplication.self), 1, arguments.baseAddress)
        }
        // snippet.end
        if startup.reportsMainLoop { print(MainLoopWatch.report) }
        g_object_unref(application)
        exit(status)
    }
}
