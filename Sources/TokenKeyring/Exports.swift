// One import for an app: the session object and everything it hands out or throws. `AuthSession` returns
// `AuthorizedClient`s and `Identity`s (TokenAuth), takes `Keyring`s and reports `KeyringError`s (Keyring), shows
// `DeviceAuthorization.Prompt`s and throws `SignInError`s (TokenAuthSignIn), records `StoredCredentials` in keyring
// items (TokenAuthKeyring), sends through `URLSessionHTTPTransport` by default (TokenAuthURLSession) and takes
// DPoP's key providers (`SoftwareProofKeys` of TokenAuthDPoP, `MachineProofKeys` of TokenAuthTPM): an app that
// handles what the session says must be able to name all of them.
@_exported import Keyring
@_exported import TokenAuth
@_exported import TokenAuthDPoP
@_exported import TokenAuthKeyring
@_exported import TokenAuthSignIn
@_exported import TokenAuthTPM
@_exported import TokenAuthURLSession
