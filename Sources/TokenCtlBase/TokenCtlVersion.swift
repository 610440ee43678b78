/// The version `tokenctl --version` and `tokenctl-full --version` print: the package's, as CHANGELOG.md names it.
///
/// One constant, compiled into both executables, rather than `git describe` at build time: SwiftPM runs no script
/// while it builds (a build plugin could, but a tarball or a vendored copy has no git history, and a sandboxed build
/// no git), so the version would depend on how the sources arrived. CHANGELOG.md is where a release is made — its
/// `## Unreleased` section becomes `## X.Y.Z` — and `ChangelogVersionTests` holds this constant to it: while the
/// newest section is Unreleased, a `-dev` version above the newest release heading; once `## X.Y.Z` tops the file,
/// exactly `X.Y.Z`. Changing one without the other fails the tests.
package enum TokenCtlVersion {
    /// The version, e.g. `0.1.0-dev` before the first release.
    package static let current = "0.1.0-dev"

    /// Whether `arguments` (after the program's name) ask for the version alone, as the argument parser reads it.
    package static func isRequested(by arguments: ArraySlice<String>) -> Bool {
        arguments.count == 1 && arguments.first == "--version"
    }
}
