import CGtk
import TokenAuthGLib

/// The window: a status line, a line for details (the sign-in URL or code, the API's answer, errors), and the
/// buttons Sign in, Call API and Sign out, with Cancel beside them while a sign-in waits for the user. Every text is a
/// label's, so it is the label's accessible name too: what the tests read through AT-SPI.
@GLibMainActor
final class MainWindow {
    /// What the buttons do; set before the window is shown.
    struct Actions {
        var signIn: @GLibMainActor () -> Void
        var callAPI: @GLibMainActor () -> Void
        var signOut: @GLibMainActor () -> Void
        var cancelSignIn: @GLibMainActor () -> Void
    }

    private let window: Widget
    private let status: Widget
    private let detail: Widget
    private let signInButton: Widget
    private let callAPIButton: Widget
    private let signOutButton: Widget
    private let cancelButton: Widget
    /// The window whose buttons GTK's C handlers reach.
    private static var current: (window: MainWindow, actions: Actions)?

    init(application: UnsafeMutablePointer<GtkApplication>, actions: Actions) {
        window = gtk_application_window_new(application)
        gtk_window_set_title(gtkCast(window, to: GtkWindow.self), "TokenKeyring Desktop App")
        gtk_window_set_default_size(gtkCast(window, to: GtkWindow.self), 480, 240)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
                     gtk_widget_set_margin_end] {
            side(box, 18)
        }
        status = makeLabel("Looking for a saved sign-in…")
        detail = makeLabel("")
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        signInButton = gtk_button_new_with_label("Sign in")
        callAPIButton = gtk_button_new_with_label("Call API")
        signOutButton = gtk_button_new_with_label("Sign out")
        cancelButton = gtk_button_new_with_label("Cancel")
        gtk_widget_set_visible(cancelButton, 0)
        for button in [signInButton, callAPIButton, signOutButton, cancelButton] {
            gtk_box_append(gtkCast(buttons, to: GtkBox.self), button)
        }
        for child in [status, detail, buttons] {
            gtk_box_append(gtkCast(box, to: GtkBox.self), child)
        }
        gtk_window_set_child(gtkCast(window, to: GtkWindow.self), box)

        let clicked: [(Widget, GCallback)] = [
            (signInButton, unsafeBitCast(Self.signInClicked, to: GCallback.self)),
            (callAPIButton, unsafeBitCast(Self.callAPIClicked, to: GCallback.self)),
            (signOutButton, unsafeBitCast(Self.signOutClicked, to: GCallback.self)),
            (cancelButton, unsafeBitCast(Self.cancelClicked, to: GCallback.self)),
        ]
        for (button, handler) in clicked { connect(button, "clicked", handler) }
        Self.current = (self, actions)
        show(signedIn: nil, busy: true)
    }

    func present() {
        gtk_window_present(gtkCast(window, to: GtkWindow.self))
    }

    /// Shows who is signed in (`nil`: nobody); while `busy`, no button can start another action.
    func show(signedIn name: String?, busy: Bool = false) {
        if !busy { setText(status, name.map { "Signed in as \($0)" } ?? "Not signed in") }
        gtk_widget_set_sensitive(signInButton, name == nil && !busy ? 1 : 0)
        gtk_widget_set_sensitive(callAPIButton, name != nil && !busy ? 1 : 0)
        gtk_widget_set_sensitive(signOutButton, name != nil && !busy ? 1 : 0)
    }

    /// Shows that the keyring cannot be used (`status`) and why (`detail`), with every button disabled: until it
    /// can be read, nobody is known to be signed in or out.
    func showUnavailable(_ status: String, detail: String) {
        setText(self.status, status)
        setText(self.detail, detail)
        for button in [signInButton, callAPIButton, signOutButton] { gtk_widget_set_sensitive(button, 0) }
    }

    /// Shows Cancel while a sign-in waits for the user (the browser, the code), and hides it after.
    func showCancel(_ shown: Bool) {
        gtk_widget_set_visible(cancelButton, shown ? 1 : 0)
    }

    /// Shows `text` in the status line itself, while something is under way.
    func showProgress(_ text: String) {
        setText(status, text)
    }

    /// Shows details: the sign-in URL or code, the API's answer, an error.
    func showDetail(_ text: String) {
        setText(detail, text)
    }

    // snippet.clicked
    /// A "clicked" handler: the button, and the data given when it was connected (none).
    private typealias Clicked = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

    // GTK calls these on its thread, outside any Swift job: `assumeIsolated` enters the actor there.
    private static let signInClicked: Clicked = { _, _ in
        GLibMainActor.assumeIsolated { current?.actions.signIn() }
    }
    // snippet.end
    private static let callAPIClicked: Clicked = { _, _ in
        GLibMainActor.assumeIsolated { current?.actions.callAPI() }
    }
    private static let signOutClicked: Clicked = { _, _ in
        GLibMainActor.assumeIsolated { current?.actions.signOut() }
    }
    private static let cancelClicked: Clicked = { _, _ in
        GLibMainActor.assumeIsolated { current?.actions.cancelSignIn() }
    }
}
