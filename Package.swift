// swift-tools-version:6.1
import PackageDescription

// The products several targets name, named once; the adapters' only where their trait is on.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let httpTypesFoundation: Target.Dependency = .product(name: "HTTPTypesFoundation", package: "swift-http-types")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let jwtKit: Target.Dependency = .product(name: "JWTKit", package: "jwt-kit")
let openCombine: Target.Dependency = .product(
    name: "OpenCombine", package: "OpenCombine", condition: .when(traits: ["OpenCombine"]))
let openAPIRuntime: Target.Dependency = .product(
    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"]))

let package = Package(
    name: "TokenKeyring",
    platforms: [.macOS(.v14)],
    products: [
        // The one product an app needs: `AuthSession`, and everything it hands out or throws.
        .library(name: "TokenKeyring", targets: ["TokenKeyring"]),
        .library(name: "Keyring", targets: ["Keyring"]),
        .library(name: "TokenAuth", targets: ["TokenAuth"]),
        .library(name: "TokenAuthURLSession", targets: ["TokenAuthURLSession"]),
        .library(name: "TokenAuthSignIn", targets: ["TokenAuthSignIn"]),
        .library(name: "TokenAuthDPoP", targets: ["TokenAuthDPoP"]),
        // DPoP keys in a TPM 2.0, on tpm2-tss: TokenKeyring's default keys (the TPM where one can be used) and tokenctl's.
        .library(name: "TokenAuthTPM", targets: ["TokenAuthTPM"]),
        .library(name: "TokenAuthKeyring", targets: ["TokenAuthKeyring"]),
        .library(name: "TokenAuthFileStore", targets: ["TokenAuthFileStore"]),
        .library(name: "TokenAuthGit", targets: ["TokenAuthGit"]),
        .library(name: "TokenAuthTesting", targets: ["TokenAuthTesting"]),
        .library(name: "TokenAuthOpenCombine", targets: ["TokenAuthOpenCombine"]),
        .library(name: "TokenAuthOpenAPI", targets: ["TokenAuthOpenAPI"]),
        .library(name: "TokenAuthGLib", targets: ["TokenAuthGLib"]),
        // No executable products: `tokenctl`, `tokenctl-full`, `oauth-test-server`, the demo and the benchmarks are
        // built here (`swift build --product tokenctl`, `swift run oauth-test-server`; SwiftPM makes products of a
        // root package's executables) and never for an app that depends on this package, which would otherwise
        // resolve their dependencies too (the argument parser, Hummingbird and the ~20 packages it brings).
    ],
    // The adapters' libraries are resolved only by apps that ask for them:
    // `.package(path: "../TokenKeyring", traits: ["OpenCombine"])`. `scripts/test` builds with every trait.
    traits: [
        .trait(name: "OpenCombine", description: "TokenAuthOpenCombine: publishers over AuthManager and AuthorizedClient."),
        .trait(name: "OpenAPI", description: "TokenAuthOpenAPI: a ClientMiddleware for swift-openapi-generator's clients."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc. A plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The C library, found through pkg-config. Only the Keyring module imports it.
        .systemLibrary(
            name: "CLibSecret",
            path: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // Items in the freedesktop Secret Service, keyed by attributes. Knows nothing about tokens.
        .target(name: "Keyring", dependencies: ["CLibSecret", logging]),
        // The core: OAuth token bundles, the storage protocols, the refresher, the token and revocation clients, the
        // HTTP transport protocol. swift-log and swift-http-types only, on FoundationEssentials: no libsecret, no NIO,
        // no crypto, no JWT, no full Foundation in its build graph — it keeps a session alive wherever Swift runs,
        // and an app that only does that links nothing more.
        .target(name: "TokenAuth", dependencies: [logging, httpTypes]),
        // The core's HTTP transport over URLSession (FoundationNetworking, libcurl on Linux).
        .target(name: "TokenAuthURLSession", dependencies: ["TokenAuth", logging, httpTypes, httpTypesFoundation]),
        // Signing in: discovery, the browser with its loopback redirect, the device flow, the grants without a
        // browser, and OpenID Connect identity. swift-nio serves the loopback redirect, swift-crypto hashes the PKCE
        // verifier, and jwt-kit checks id_tokens against the issuer's JWKS: only apps that sign users in link them.
        .target(
            name: "TokenAuthSignIn",
            dependencies: [
                "TokenAuthURLSession", "TokenAuth", logging, httpTypes, httpTypesFoundation,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                crypto, jwtKit,
            ]
        ),
        // Proof of possession (DPoP, RFC 9449): P-256 keys in software, and the proofs every key signs, on swift-crypto.
        // The core has the seam (`DPoP`, `ProofKeyProvider`) and no cryptography.
        .target(name: "TokenAuthDPoP", dependencies: ["TokenAuth", crypto]),
        // tpm2-tss (ESAPI, the TCTI loader, RC decoding, marshalling), found through pkg-config. Only TokenAuthTPM
        // imports it.
        .systemLibrary(
            name: "CTSS2",
            path: "CTSS2",
            pkgConfig: "tss2-esys",
            providers: [.apt(["libtss2-dev"])]
        ),
        // DPoP keys that never leave a TPM 2.0 (`TPMProofKeys`): ECC P-256 keys under the owner hierarchy's storage
        // primary, stored as TPM-wrapped blobs, signing the proofs TokenAuthDPoP writes. Every TPM call blocks, and
        // runs on a queue of the provider's own, never on Swift's cooperative pool.
        .target(name: "TokenAuthTPM", dependencies: ["CTSS2", "TokenAuth", "TokenAuthDPoP", crypto]),
        // Token bundles in the Secret Service: the keyring store, the sleep inhibitor's window guard, and keyring
        // conveniences. The stored format and the write rules it shares with the file store are the core's.
        .target(name: "TokenAuthKeyring", dependencies: ["TokenAuth", "Keyring", logging]),
        // Token bundles in plain 0600 files, for machines without a Secret Service, by explicit choice: the core and
        // swift-log only — no libsecret, no Keyring, no GLib in its build graph, so that an app for a container links
        // none of them.
        .target(name: "TokenAuthFileStore", dependencies: ["TokenAuth", logging]),
        // git's credential protocol (git-credential(1)) over a session: `tokenctl git-credential`. On the core only.
        .target(name: "TokenAuthGit", dependencies: ["TokenAuth"]),
        // An app's session with its provider: sign-in, the keyring item, the refresher, sign-out, accounts — put
        // together as the articles recommend. Re-exports the modules its API hands out, so an app imports one.
        .target(
            name: "TokenKeyring",
            dependencies: [
                "TokenAuth", "TokenAuthKeyring", "TokenAuthFileStore", "TokenAuthSignIn", "TokenAuthURLSession",
                "TokenAuthDPoP", "TokenAuthTPM", "Keyring", logging,
            ]
        ),
        // Test doubles for apps and for this package's tests: clocks, a scripted token endpoint, stores and
        // transports that count, fail or hold their answer on demand.
        .target(name: "TokenAuthTesting", dependencies: ["TokenAuth", httpTypes]),
        // The base of tokenctl's two executables: every option's spelling, default and bound; the store lookup (the
        // keyring, then the file); the plain `tokenctl token` call, read without the argument parser; the exit
        // statuses, computed from the errors' categories; the keyring errors' sentences, the log set-up and the
        // hand-over to `tokenctl-full`. On FoundationEssentials, like everything `tokenctl` links.
        .target(
            name: "TokenCtlBase",
            dependencies: ["Keyring", "TokenAuth", "TokenAuthKeyring", "TokenAuthFileStore", logging]
        ),
        // tokenctl's commands, sign-in included, for `tokenctl-full`: one file per subcommand, on the base's options.
        .target(
            name: "TokenCtlCommands",
            dependencies: [
                "TokenAuthURLSession", "TokenAuth", "TokenAuthKeyring", "TokenAuthFileStore", "TokenAuthSignIn",
                "TokenAuthDPoP", "TokenAuthTPM", "TokenAuthGit", "Keyring", "TokenCtlBase",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging, httpTypes,
            ]
        ),
        // `tokenctl`: the plain `token` call on a fresh item, read and printed; everything else runs as
        // `tokenctl-full`, beside it. No argument parser, no HTTP, no full Foundation: it starts about as fast as
        // `secret-tool lookup` (figure 6 of docs/Benchmarks.md).
        .executableTarget(name: "tokenctl", dependencies: ["TokenCtlBase", "TokenAuth"]),
        // Every command, with the sign-in library.
        .executableTarget(name: "tokenctl-full", dependencies: ["TokenCtlCommands"]),
        // A real OAuth 2.0 authorization server and protected resource on loopback, for tests and the demo.
        // jwt-kit and swift-crypto sign its OpenID Connect id_tokens and publish their keys.
        .target(
            name: "OAuthTestServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                crypto, jwtKit,
                .product(name: "CryptoExtras", package: "swift-crypto"),
                logging, httpTypes,
            ]
        ),
        .executableTarget(name: "oauth-test-server", dependencies: ["OAuthTestServer"]),
        // scripts/demo's burst: many concurrent AuthorizedClient requests over one keyring item, as an app makes.
        .executableTarget(
            name: "tokenkeyring-demo",
            dependencies: ["TokenAuthURLSession", "TokenAuth", "TokenAuthKeyring", "Keyring", httpTypes]
        ),
        // The README's library example, compiled with everything else so that it cannot rot
        // (ReadmeExampleTests checks that the README shows exactly this file).
        .executableTarget(name: "readme-example", dependencies: ["TokenKeyring"], path: "Examples/ReadmeExample"),
        // Child processes of the tests and the benchmarks, the one runner of both: standard input, environment
        // changes, output read as it comes, a time limit, the pid to signal. In no product and on no package, so that
        // an app neither builds nor resolves anything for it.
        .target(name: "ChildProcesses"),
        // The figures of `scripts/bench`, in Benchmarks/ beside the C floor, the process meter and the Python peer it
        // drives. No product: SwiftPM builds it only in this package, never for users.
        .executableTarget(
            name: "tokenkeyring-bench",
            dependencies: [
                "TokenAuthURLSession", "TokenAuth", "TokenAuthKeyring", "TokenAuthTesting", "Keyring",
                "OAuthTestServer", "ChildProcesses", "TokenAuthDPoP", "TokenAuthTPM", httpTypes, httpTypesFoundation,
            ],
            path: "Benchmarks/tokenkeyring-bench"
        ),
        // What every test target may need, whatever it tests: the one bounded wait (`waitUntil`), the one scope
        // (`cleaningUp`), temporary directories, the package's built executables, and child processes with the
        // tests' defaults. Depends on ChildProcesses alone: the keyring-free test targets use it too.
        .target(name: "TestSupport", dependencies: ["ChildProcesses"], path: "Tests/TestSupport"),
        // Shared by the keyring's test targets: the Secret Service requirement, keyring admin, private providers and
        // buses.
        .target(
            name: "KeyringTestSupport",
            dependencies: ["Keyring", "TestSupport", "ChildProcesses"],
            path: "Tests/KeyringTestSupport"
        ),
        // Shared by the TokenAuth test targets: a real OAuth server with a manual wall clock, and event capture.
        .target(
            name: "OAuthTestSupport",
            dependencies: [
                "TokenAuthURLSession", "TokenAuth", "TokenAuthSignIn", "TokenAuthTesting", "OAuthTestServer",
                "TestSupport", logging, httpTypes, httpTypesFoundation,
            ],
            path: "Tests/OAuthTestSupport"
        ),
        .testTarget(
            name: "KeyringTests",
            dependencies: [
                "Keyring", "KeyringTestSupport", "TestSupport", "ChildProcesses", "CLibSecret", "keyring-child",
            ]
        ),
        // The core's tests: no keyring. Doubles from TokenAuthTesting, real HTTP from OAuthTestServer.
        .testTarget(
            name: "TokenAuthTests",
            dependencies: [
                "TokenAuthURLSession", "TokenAuth", "TokenAuthTesting", "OAuthTestServer", "OAuthTestSupport",
                "TestSupport", httpTypes, httpTypesFoundation,
            ]
        ),
        // DPoP's proofs and keys, checked with jwt-kit, and bound sessions against the real server on loopback.
        .testTarget(
            name: "TokenAuthDPoPTests",
            dependencies: [
                "TokenAuthDPoP", "TokenAuth", "TokenAuthURLSession", "TokenAuthTesting", "OAuthTestServer",
                "OAuthTestSupport", "TestSupport", crypto, jwtKit, httpTypes,
            ]
        ),
        // TPM keys and TPMProofKeys against a software TPM (swtpm) that scripts/test starts and names in
        // TPM2TOOLS_TCTI; the signatures and proofs checked with swift-crypto. Without it they fail, never skip.
        .testTarget(
            name: "TokenAuthTPMTests",
            dependencies: ["TokenAuthTPM", "TokenAuthDPoP", "TokenAuth", "TestSupport", crypto]
        ),
        // The local OAuth server itself, and its executable: what the other tests rely on.
        .testTarget(
            name: "OAuthTestServerTests",
            dependencies: [
                "OAuthTestServer", "OAuthTestSupport", "TestSupport", "TokenAuth", "TokenAuthURLSession",
                "TokenAuthTesting", "oauth-test-server", httpTypes,
                // The DPoP tests sign their proofs with P-256 keys of their own.
                crypto,
            ]
        ),
        // The URLSession transport against a real server on loopback.
        .testTarget(
            name: "TokenAuthURLSessionTests",
            dependencies: ["TokenAuthURLSession", "TokenAuth", "OAuthTestServer", "OAuthTestSupport", httpTypes]
        ),
        // Sign-in's tests: discovery, the browser and device flows, OpenID identity, and AuthManager checking
        // refreshed id_tokens — against a real OAuth server on loopback.
        .testTarget(
            name: "TokenAuthSignInTests",
            dependencies: [
                "TokenAuthURLSession", "TokenAuthSignIn", "TokenAuth", "TokenAuthTesting", "OAuthTestServer", "OAuthTestSupport",
                "TestSupport",
                httpTypes,
                // The fuzz corpus replay signs id_tokens with the fuzz keys and reads JWKs, as the targets do.
                crypto,
                jwtKit,
            ]
        ),
        // A process of the file store's tests: writes an item without end (to be killed mid-write), or refreshes it.
        // An app of the file store alone, as one for a container is: `scripts/test` checks that it links no libsecret.
        .executableTarget(
            name: "file-store-child",
            dependencies: ["TokenAuthURLSession", "TokenAuthFileStore", "TokenAuth", logging],
            path: "Tests/FileStoreChild"
        ),
        // An app of the session tests: one AuthSession, a request every 200 ms, AuthSession.bootstrap() first.
        .executableTarget(name: "session-app", dependencies: ["TokenKeyring", httpTypes], path: "Tests/SessionApp"),
        // A process of the keyring tests that outlives its keyring: one libsecret state across the test's commands.
        .executableTarget(name: "keyring-child", dependencies: ["Keyring"], path: "Tests/KeyringChild"),
        // The keyring store against a real Secret Service.
        .testTarget(
            name: "TokenAuthKeyringTests",
            dependencies: [
                "TokenAuthURLSession", "TokenAuthKeyring", "TokenAuth", "TokenAuthSignIn", "TokenAuthTesting",
                "Keyring", "OAuthTestServer", "KeyringTestSupport", "OAuthTestSupport", "TestSupport", httpTypes,
            ]
        ),
        // The file store: in a directory of each test's own, and with processes of its own. No keyring.
        .testTarget(name: "TokenAuthGitTests", dependencies: ["TokenAuthGit", "TokenAuth", "TokenAuthTesting"]),
        .testTarget(
            name: "TokenAuthFileStoreTests",
            dependencies: [
                "TokenAuthFileStore", "TokenAuth", "TokenAuthURLSession", "OAuthTestServer", "OAuthTestSupport",
                "TestSupport", "file-store-child",
            ]
        ),
        // The command line's base, without running it: the plain token call read without the parser, the version.
        .testTarget(name: "TokenCtlBaseTests", dependencies: ["TokenCtlBase", "Keyring"]),
        // The commands, without running them: the parser against the base's reader, the exit statuses of every error
        // type (SignInError's categories are the commands' conformance), the summary of stored credentials.
        .testTarget(
            name: "TokenCtlCommandsTests",
            dependencies: [
                "TokenCtlCommands", "TokenCtlBase", "TokenAuth", "TokenAuthSignIn", "Keyring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Runs the built `tokenctl` as a child process: exit codes, output, and the keyring items it leaves.
        .testTarget(
            name: "tokenctlTests",
            dependencies: [
                "TokenAuthURLSession", "KeyringTestSupport", "Keyring", "TokenAuth", "TokenAuthKeyring",
                "TokenAuthFileStore", "TokenAuthSignIn", "OAuthTestServer", "OAuthTestSupport", "TestSupport",
                "ChildProcesses", "TokenCtlCommands", "TokenCtlBase", "tokenctl", "tokenctl-full", httpTypes,
            ]
        ),
        // The session object against a real OAuth server on loopback and the real keyring.
        .testTarget(
            name: "TokenKeyringTests",
            dependencies: [
                "TokenKeyring", "TokenAuthFileStore", "OAuthTestServer", "OAuthTestSupport", "KeyringTestSupport",
                "TestSupport", "TokenAuthTesting", "ChildProcesses", "session-app", "tokenctl", "tokenctl-full", httpTypes,
            ]
        ),
        // Adapters over AuthorizedClient, each its own product so apps that do not want them do not build them.
        .target(name: "TokenAuthOpenCombine", dependencies: ["TokenAuth", openCombine, httpTypes]),
        .target(name: "TokenAuthOpenAPI", dependencies: ["TokenAuth", openAPIRuntime, httpTypes]),
        // GLib's main loop, found through pkg-config. Only TokenAuthGLib imports it.
        .systemLibrary(
            name: "CGLib",
            path: "CGLib",
            pkgConfig: "glib-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // Delivery to a GLib main context (GTK's thread): a SerialExecutor and the global actor GLibMainActor on it.
        // Depends on GLib alone: the core knows nothing of it, and takes completions isolated to any actor.
        .target(name: "TokenAuthGLib", dependencies: ["CGLib"]),
        // The executor and the actor against a real GMainLoop on a thread of the test's own, and the callback API
        // delivering through them.
        .testTarget(
            name: "TokenAuthGLibTests",
            dependencies: ["TokenAuthGLib", "CGLib", "TokenAuth", "TokenAuthTesting", "TestSupport", httpTypes]
        ),
        .testTarget(
            name: "TokenAuthOpenCombineTests",
            dependencies: [
                "TokenAuthURLSession", "TokenAuthOpenCombine", "TokenAuth", "TokenAuthTesting", "OAuthTestServer",
                "OAuthTestSupport", openCombine, httpTypes, httpTypesFoundation,
            ]
        ),
        .testTarget(
            name: "TokenAuthOpenAPITests",
            dependencies: [
                "TokenAuthURLSession", "TokenAuthOpenAPI", "TokenAuth", "TokenAuthTesting", "OAuthTestServer",
                "OAuthTestSupport", "TokenAuthDPoP", openAPIRuntime, httpTypes, httpTypesFoundation,
            ]
        ),
    ]
)
