// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TokenKeyring",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Keyring", targets: ["Keyring"]),
        .library(name: "TokenAuth", targets: ["TokenAuth"]),
        .library(name: "TokenAuthOpenCombine", targets: ["TokenAuthOpenCombine"]),
        .library(name: "TokenAuthOpenAPI", targets: ["TokenAuthOpenAPI"]),
        .executable(name: "tokenctl", targets: ["tokenctl"]),
        .executable(name: "oauth-test-server", targets: ["oauth-test-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.5.0"),
    ],
    targets: [
        // The C library, found through pkg-config. Only the Keyring module imports it.
        .systemLibrary(
            name: "CLibSecret",
            path: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // Batched D-Bus calls in C, for Keyring. Gets GIO's headers and flags from CLibSecret's pkg-config.
        .target(
            name: "CDBusBatch",
            dependencies: ["CLibSecret"]
        ),
        // Items in the freedesktop Secret Service, keyed by attributes. Knows nothing about tokens.
        .target(
            name: "Keyring",
            dependencies: ["CLibSecret", "CDBusBatch"]
        ),
        // OAuth token bundles: the model, stores, the refresher, the token-endpoint client and HTTP.
        .target(
            name: "TokenAuth",
            dependencies: [
                "Keyring",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "tokenctl",
            dependencies: [
                "TokenAuth",
                "Keyring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A real OAuth 2.0 authorization server and protected resource on loopback, for tests and the demo.
        .target(
            name: "OAuthTestServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .executableTarget(
            name: "oauth-test-server",
            dependencies: ["OAuthTestServer"]
        ),
        // scripts/demo's burst: many concurrent AuthorizedClient requests over one keyring item, as an app makes.
        .executableTarget(
            name: "tokenkeyring-demo",
            dependencies: [
                "TokenAuth",
                "Keyring",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The figures of `scripts/bench`. No product: SwiftPM builds it only in this package, never for users.
        .executableTarget(
            name: "tokenkeyring-bench",
            dependencies: [
                "TokenAuth", "Keyring", "OAuthTestServer",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ]
        ),
        // Shared by the test targets: the Secret Service requirement, keyring admin, child processes.
        .target(
            name: "KeyringTestSupport",
            dependencies: ["Keyring"],
            path: "Tests/KeyringTestSupport"
        ),
        .testTarget(
            name: "KeyringTests",
            dependencies: ["Keyring", "KeyringTestSupport"]
        ),
        .testTarget(
            name: "TokenAuthTests",
            dependencies: ["TokenAuth", "Keyring", "OAuthTestServer", "KeyringTestSupport"]
        ),
        // Runs the built `tokenctl` as a child process: exit codes, output, and the keyring items it leaves.
        .testTarget(
            name: "tokenctlTests",
            dependencies: ["KeyringTestSupport", "Keyring", "TokenAuth", "OAuthTestServer", "tokenctl"]
        ),
        // Adapters over AuthorizedClient, each its own product so apps that do not want them do not build them.
        .target(
            name: "TokenAuthOpenCombine",
            dependencies: ["TokenAuth", .product(name: "OpenCombine", package: "OpenCombine")]
        ),
        .target(
            name: "TokenAuthOpenAPI",
            dependencies: ["TokenAuth", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]
        ),
        .testTarget(
            name: "TokenAuthOpenCombineTests",
            dependencies: ["TokenAuthOpenCombine", "TokenAuth", "OAuthTestServer"]
        ),
        .testTarget(
            name: "TokenAuthOpenAPITests",
            dependencies: [
                "TokenAuthOpenAPI", "TokenAuth", "OAuthTestServer",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
    ]
)
