/// The errors of the desktop portal: what a sandboxed process meets instead of the Secret Service.
extension KeyringError {
    /// No desktop portal answers on the session bus.
    static func noPortal(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .portalUnavailable,
            "No desktop portal answers on the session bus (org.freedesktop.portal.Desktop).",
            fix: "Install and run xdg-desktop-portal on the host, with the backend for your desktop "
                + "(xdg-desktop-portal-gnome or -gtk, -kde); outside Flatpak, check DBUS_SESSION_BUS_ADDRESS.",
            underlying: detail)
    }

    /// The portal answered `doing` with an error.
    static func portalRefused(_ doing: String, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .portalRefused, "The desktop portal refused \(doing).",
            fix: "Check the portal's log on the host (journalctl --user -u xdg-desktop-portal) and the app's "
                + "permissions (flatpak permission-show APP_ID).",
            underlying: detail)
    }
}
