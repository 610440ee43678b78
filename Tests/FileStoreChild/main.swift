import Foundation
import Logging
import TokenAuth
import TokenAuthURLSession
import TokenAuthFileStore

// A child process of the file store's tests, as another program using the same file would be:
//
//   file-store-child write DIRECTORY SERVICE ACCOUNT PREFIX
//       replaces the item again and again, without end, with tokens PREFIX-1, PREFIX-2, … and a large scope (so that
//       each write takes a while): the test kills it with SIGKILL in the middle of one.
//   file-store-child token DIRECTORY SERVICE ACCOUNT
//       prints a valid access token of the item, refreshing it first if needed through the client the file records,
//       as an app would: an AuthManager over the store and its item lock. The waits (the lock, the token request)
//       are long, for a loaded machine; the debug log (the lock's "waiting for the refresh lock") goes to stderr.
//   file-store-child load DIRECTORY SERVICE ACCOUNT
//       prints the item's access token as stored, or the store's error (its code and sentence) on stderr, exit 1.
//   file-store-child hold FILE
//       as a writer of the store does with its temporary file: creates FILE (0600), locks it with flock, writes a
//       part of a bundle, prints "holding" on stderr and waits, holding the lock, until it is killed.
let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "hold" {
    let part = Array(#"{"version":1,"access_tok"#.utf8)
    let file = open(arguments[2], O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard file >= 0, flock(file, LOCK_EX) == 0, write(file, part, part.count) == part.count else {
        FileHandle.standardError.write(Data("file-store-child: cannot hold \(arguments[2]): \(errno)\n".utf8))
        exit(1)
    }
    FileHandle.standardError.write(Data("holding\n".utf8))
    while true { pause() }
}
guard arguments.count >= 5, let mode = arguments.dropFirst().first else {
    FileHandle.standardError.write(
        Data("usage: file-store-child write|token|load DIRECTORY SERVICE ACCOUNT [PREFIX], or hold FILE\n".utf8))
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[2])
let (service, account) = (arguments[3], arguments[4])
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .debug
    return handler
}

do {
    switch mode {
    case "write" where arguments.count == 6:
        // The lowest priority: the loop keeps a core busy, and must not starve the keyring daemon and the tests
        // running beside it.
        _ = nice(19)
        let store = FileAuthStore(service: service, account: account, directory: directory)
        let scope = String(repeating: "scope ", count: 10_000)
        var count = 0
        while true {
            count += 1
            let auth = Auth(accessToken: "\(arguments[5])-\(count)", refreshToken: "refresh-\(count)", scope: scope)
            try await store.save(StoredCredentials(auth: auth))
        }
    case "token":
        let reader = FileAuthStore(service: service, account: account, directory: directory)
        guard let client = try await reader.loadCredentials()?.client else { throw TokenAuthError.noCredentials("no client") }
        let store = FileAuthStore(
            service: service, account: account, client: client, directory: directory, wallClock: systemWallClock)
        let transport = URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize, timeout: .seconds(600))
        let manager = AuthManager(
            store: store, refresher: TokenEndpointClient(client: client, transport: transport),
            lock: store.itemLock(maximumWait: .seconds(600)))
        print(try await manager.validToken())
    case "load":
        let store = FileAuthStore(service: service, account: account, directory: directory)
        do {
            print(try await store.load()?.accessToken ?? "(nothing stored)")
        } catch let error as TokenAuthError {
            FileHandle.standardError.write(Data("\(error.code): \(error)\n".utf8))
            exit(1)
        }
    default:
        FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("file-store-child: \(error)\n".utf8))
    exit(1)
}
