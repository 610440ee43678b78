// swift-tools-version:6.2
// An app's package that depends on TokenKeyring by path, as the README and the articles tell an app to: it compiles
// the README's program, Getting Started's program, TestingYourApp's recipe and every example of the `///` comments
// in Sources/, in Swift 6 mode with every warning an error. `scripts/test` builds it and runs its tests
// (scripts/lib/consumer.sh): it stages it in .build/consumer/Consumer, beside a link named TokenKeyring to this
// checkout, and writes the doc comments' examples into DocCommentExamples there.
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [
        // The OpenAPI trait for the examples of TokenAuthOpenAPI; an app that does not use it leaves it out.
        .package(path: "../TokenKeyring", traits: ["OpenAPI"]),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.5.0"),
        // SHA256 for the examples of TokenAuthTPM's TPMDevice, which signs digests.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // The README's program (Examples/ReadmeExample) and Getting Started's (Snippets/GettingStarted.swift),
        // each with the one product the docs tell an app to use.
        .executableTarget(
            name: "ReadmeExample",
            dependencies: [.product(name: "TokenKeyring", package: "TokenKeyring")]
        ),
        .executableTarget(
            name: "GettingStarted",
            dependencies: [.product(name: "TokenKeyring", package: "TokenKeyring")]
        ),
        // Getting Started's program with its issuer read from GETTING_STARTED_ISSUER, nothing else changed: written
        // by scripts/lib/consumer.sh into the staged copy, and run against the test server by
        // scripts/lib/getting-started-check.
        .executableTarget(
            name: "GettingStartedLocal",
            dependencies: [.product(name: "TokenKeyring", package: "TokenKeyring")]
        ),
        // snippet.recipe
        // The app's logic: TokenAuth only, no libsecret in its build graph.
        .target(
            name: "MyAppCore",
            dependencies: [.product(name: "TokenAuth", package: "TokenKeyring")]
        ),
        // The app: its session in the keyring, handed to the logic.
        .executableTarget(
            name: "MyApp",
            dependencies: ["MyAppCore", .product(name: "TokenKeyring", package: "TokenKeyring")]
        ),
        // The logic's tests, with the doubles: they build and run where there is no libsecret.
        .testTarget(
            name: "MyAppCoreTests",
            dependencies: ["MyAppCore", .product(name: "TokenAuthTesting", package: "TokenKeyring")]
        ),
        // snippet.end
        // Every ```swift example of the `///` comments in Sources/, beside Prelude.swift: written by
        // scripts/lib/doc-examples.py into the staged copy of this target.
        .target(
            name: "DocCommentExamples",
            dependencies: [
                .product(name: "TokenKeyring", package: "TokenKeyring"),
                .product(name: "TokenAuthFileStore", package: "TokenKeyring"),
                .product(name: "TokenAuthGLib", package: "TokenKeyring"),
                .product(name: "TokenAuthTesting", package: "TokenKeyring"),
                .product(name: "TokenAuthOpenAPI", package: "TokenKeyring"),
                .product(name: "TokenAuthTPM", package: "TokenKeyring"),
                .product(name: "TokenAuthGit", package: "TokenKeyring"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every warning an error, in every target: what an app that builds this way would see.
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
