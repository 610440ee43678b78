import Foundation
import HTTPTypes
import OAuthTestServer
import Synchronization
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

/// Whether something accepts connections on `127.0.0.1:port`: binding it ourselves fails while it is taken.
func loopbackPortIsFree(_ port: Int) async -> Bool {
    do {
        let listener = try await LoopbackRedirectListener.bind(port: port, path: "/")
        await listener.close()
        return true
    } catch {
        return false
    }
}
