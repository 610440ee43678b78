import Foundation

/// An executable of this package that `swift build --build-tests` put next to the test bundle.
package enum BuiltExecutable {
    /// Where to look for `name`, in order: beside the test bundle (SwiftPM's products directory), then the
    /// repository's default debug build.
    package static func candidates(_ name: String) -> [URL] {
        var directories = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        directories.append(repository.appendingPathComponent(".build/debug"))
        return directories.map { $0.appendingPathComponent(name) }
    }

    /// The first candidate for `name` that is an executable file.
    package static func path(_ name: String) -> String? {
        candidates(name).map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
