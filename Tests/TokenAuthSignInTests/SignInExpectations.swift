import Testing
import TokenAuthSignIn

/// Runs `body`, expecting a ``SignInError`` with `code`; records an issue for a result or any other error. Returns
/// the error to look into further.
@discardableResult
func expectSignInError(
    _ code: SignInError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> some Any
) async -> SignInError? {
    do {
        _ = try await body()
        Issue.record("expected a SignInError \(code), got a result", sourceLocation: sourceLocation)
    } catch let error as SignInError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a SignInError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Whether `error` has `code`: `#expect(error == .badSignature)` for an optional error.
func == (error: SignInError?, code: SignInError.Code) -> Bool { error?.code == code }
