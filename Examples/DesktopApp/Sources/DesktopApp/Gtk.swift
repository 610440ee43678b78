import CGtk

// GTK's C API as the window uses it. GTK's type-cast macros (GTK_WINDOW(), GTK_BOX(), …) and `g_signal_connect`
// are macros Swift cannot call: here they are pointer conversions and `g_signal_connect_data`.

typealias Widget = UnsafeMutablePointer<GtkWidget>

/// `pointer` as a pointer to another GObject type of the same object: what GTK's cast macros do, without their
/// run-time check (the window casts only objects it made).
func gtkCast<T, U>(_ pointer: UnsafeMutablePointer<U>, to type: T.Type) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer<T>(OpaquePointer(pointer))
}

/// Connects `handler` (a C function) to `signal` of `instance`, with no data.
func connect<Instance>(_ instance: UnsafeMutablePointer<Instance>, _ signal: String, _ handler: GCallback) {
    g_signal_connect_data(instance, signal, handler, nil, nil, GConnectFlags(rawValue: 0))
}

/// A label whose text is also its accessible name (GTK 4 names a label by its text), for the window and for tests.
func makeLabel(_ text: String) -> Widget {
    let label = gtk_label_new(text)!
    gtk_label_set_wrap(OpaquePointer(label), 1)
    // Wrapped at about 60 characters, inside words where need be (a sign-in URL is one long word): a long text
    // makes the window taller, not as wide as the screen.
    gtk_label_set_wrap_mode(OpaquePointer(label), PANGO_WRAP_WORD_CHAR)
    gtk_label_set_max_width_chars(OpaquePointer(label), 60)
    gtk_label_set_selectable(OpaquePointer(label), 0)
    return label
}

/// Sets a label's text (and so its accessible name).
func setText(_ label: Widget, _ text: String) {
    gtk_label_set_text(OpaquePointer(label), text)
}
