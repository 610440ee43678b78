// swift-tools-version:6.0
// A GTK 4 window that signs in, stays signed in and signs out with TokenKeyring: the library as a desktop app uses
// it, clicked and read back through the accessibility bus by scripts/lib/desktop-tests. A package of its own, so that
// GTK stays out of the library's build: `swift build` here builds the executable `DesktopApp`.
import PackageDescription

let package = Package(
    name: "DesktopApp",
    platforms: [.macOS(.v14)],
    dependencies: [
        // The repository this example lives in.
        .package(name: "TokenKeyring", path: "../.."),
    ],
    targets: [
        // snippet.manifest
        // GTK 4 (Debian 12: 4.8, libgtk-4-dev), found through pkg-config: Sources/CGtk holds a module map and a
        // header that includes <gtk/gtk.h>. Only the app imports it.
        .systemLibrary(
            name: "CGtk",
            pkgConfig: "gtk4",
            providers: [.apt(["libgtk-4-dev"])]
        ),
        .executableTarget(
            name: "DesktopApp",
            dependencies: [
                "CGtk",
                .product(name: "TokenKeyring", package: "TokenKeyring"),
                .product(name: "TokenAuthGLib", package: "TokenKeyring"),
            ]
        ),
        // snippet.end
    ]
)
