// Binding a session's tokens to this machine: DPoP with the key in the TPM.

import Foundation
import HTTPTypes
import TokenKeyring

// snippet.session
let session = AuthSession(
    configuration: .init(
        provider: .issuer(URL(string: "https://auth.example.com")!),
        clientID: "org.example.Notes",
        service: "org.example.Notes",
        proofOfPossession: .required,            // refuse to sign in at an issuer without DPoP
        proofKeys: MachineProofKeys(.tpm)))      // and make no key outside the TPM
// snippet.end

// snippet.use
do {
    try await session.signIn()
    let api = try await session.client()          // requests carry `Authorization: DPoP …` and a proof
    let (response, _) = try await api.send(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/me")!))
    print(response.status)
} catch let error as TokenAuthError where error.code == .proofKeyUnusable {
    // The stored key cannot be used here (another machine, or the TPM was cleared): sign in again.
    print(error)
} catch let error as TokenAuthError where error.code == .proofKeyUnavailable {
    // No TPM can be used just now, or no permission to open it: `tokenctl doctor` says which.
    print(error)
}
// snippet.end
