import Foundation
import HTTPTypes
import TokenAuth

/// How the errors of one kind of document read: the key set's, or UserInfo's.
struct DocumentFailures {
    /// Where the document comes from, as the errors name it (the key set's URL, or "it" for the endpoint).
    let source: String
    /// What a refusal (4xx) means, after ``source``: "has no key set".
    let refusal: String
    /// What an answer that does not decode is, after ``source``: "is not a JWK Set".
    let unreadable: String
    /// The error of a failure that may pass: no answer, 408, 429 or 5xx.
    let unavailable: (_ statusCode: Int?, _ problem: String) -> SignInError
    /// The error of a failure that lasts: a redirect, a refusal, an answer too large or unreadable.
    let unusable: (_ statusCode: Int?, _ problem: String) -> SignInError
}

extension IDTokenVerifier {
    /// GETs a JSON document — the key set, or UserInfo's answer — without following redirects, and decodes its
    /// 2xx answer of at most ``maximumDocumentSize`` bytes; every failure becomes one of `failures`' errors.
    static func fetchDocument<Body: Decodable>(
        _: Body.Type, with request: HTTPRequest, transport: any HTTPTransport, failures: DocumentFailures
    ) async throws -> Body {
        let tooLarge = "\(failures.source) answers with more than \(maximumDocumentSize / 1024) KiB"
        let host = request.authority ?? "the server"
        let response: HTTPResponse
        let body: Data
        do {
            (response, body) = try await transport.send(request, body: nil, redirects: .refuse)
        } catch let error as TokenAuthError {
            if error.code == .responseTooLarge { throw failures.unusable(nil, tooLarge) }
            let cause = error.code == .timedOut ? "no answer in time" : error.transportCause ?? "the connection failed"
            throw failures.unavailable(nil, "\(host): \(cause)")
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw failures.unavailable(nil, "\(host): \(type(of: error))")
        }
        let status = response.status.code
        switch status {
        case 200...299: break
        case 408, 429, 500...599: throw failures.unavailable(status, "\(failures.source) is not answering normally")
        case 300...399: throw failures.unusable(status, "\(failures.source) redirects; redirects are not followed")
        default: throw failures.unusable(status, "\(failures.source) \(failures.refusal)")
        }
        guard body.count <= maximumDocumentSize else { throw failures.unusable(nil, tooLarge) }
        do {
            return try JSONDecoder().decode(Body.self, from: body)
        } catch {
            throw failures.unusable(status, "\(failures.source) \(failures.unreadable)")
        }
    }
}
