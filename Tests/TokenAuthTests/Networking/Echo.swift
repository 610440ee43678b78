import Foundation

/// The JSON echo of `/resource`.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let body: String
    let bodyBase64: String
    let tokenSubject: String
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
