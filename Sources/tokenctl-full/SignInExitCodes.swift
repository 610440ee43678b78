import ArgumentParser
import TokenAuthSignIn
import TokenCtlCommands

extension Exit {
    /// The exit status of each code of `SignInError`, in the same table. A code missing here exits 5 when it is
    /// transient, 64 when it is a misconfiguration, else 3.
    static let bySignInCode: [SignInError.Code: ExitCode] = [
        // Declined, refused, expired, or an answer that cannot be trusted: nothing was stored; sign in again.
        .denied: noCredentials, .rejected: noCredentials, .codeExpired: noCredentials,
        .responseIssuerMismatch: noCredentials, .missingIDToken: noCredentials, .malformedIDToken: noCredentials,
        .unsupportedAlgorithm: noCredentials, .unknownKey: noCredentials, .badSignature: noCredentials,
        .wrongIssuer: noCredentials, .wrongAudience: noCredentials, .wrongAuthorizedParty: noCredentials,
        .idTokenExpired: noCredentials, .issuedInFuture: noCredentials, .nonceMismatch: noCredentials,
        .subjectChanged: noCredentials, .userinfoInvalid: noCredentials, .userinfoSubjectMismatch: noCredentials,
        // Later may work.
        .unavailable: transient, .timedOut: transient, .malformedResponse: transient, .jwksUnavailable: transient,
        .keyNotYetFetched: transient, .userinfoUnavailable: transient,
        // The issuer, client or server cannot be used as configured.
        .insecureIssuer: usage, .invalidIssuer: usage, .metadataNotFound: usage, .redirected: usage,
        .metadataNotJSON: usage, .issuerMismatch: usage, .missingEndpoint: usage, .insecureEndpoint: usage,
        .responseTooLarge: usage, .noAuthorizationEndpoint: usage, .pkceUnsupported: usage, .invalidRedirect: usage,
        .jwksMisconfigured: usage, .noGraphicalSession: usage, .browserNotStarted: usage, .unusableDeviceAnswer: usage, .unknownProvider: usage,
    ]

    static func status(of error: SignInError) -> ExitCode {
        // A listener on an ephemeral port may work later; on a fixed port, the port has to change.
        if error.code == .listenerUnavailable { return error.isTransient ? transient : usage }
        return bySignInCode[error.code] ?? (error.isTransient ? transient : error.isMisconfiguration ? usage : noCredentials)
    }
}
