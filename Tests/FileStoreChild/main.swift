import Foundation
import Logging
import TokenAuth
import TokenAuthURLSession
import TokenAuthKeyring

// A child process of the file store's tests, as another program using the same file would be:
//
//   file-store-child write DIRECTORY SERVICE ACCOUNT PREFIX
//       replaces the item again and again, without end, with tokens PREFIX-1, PREFIX-2, … and a large scope (so that
//       each write takes a while): the test kills it with SIGKILL in the middle of one.
//   file-store-child token DIRECTORY SERVICE ACCOUNT
//       prints a valid access token of the item, refreshing it first if needed through the client the file records,
//       as an app would: an AuthManager over the store and its item lock. The waits (the lock, the token request)
//       are long, for a loaded machine; the debug log (the lock's "waiting for the refresh lock") goes to stderr.
let arguments = CommandLine.arguments
guard arguments.count >= 5, let mode = arguments.dropFirst().first else {
    FileHandle.standardError.write(Data("usage: file-store-child write|token DIRECTORY SERVICE ACCOUNT [PREFIX]\n".utf8))
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
        let transport = URLSessionTransport(maximumResponseBodySize: TokenResponse.maximumSize, timeout: .seconds(600))
        let manager = AuthManager(
            store: store, refresher: TokenEndpointClient(client: client, transport: transport),
            lock: store.itemLock(maximumWait: .seconds(600)))
        print(try await manager.validToken())
    default:
        FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("file-store-child: \(error)\n".utf8))
    exit(1)
}
