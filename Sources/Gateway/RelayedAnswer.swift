import HTTP
import Routing

/// Modgud's answer, to reach the browser byte for byte from deep in a
/// handler (a 429 met while getting a token, `ModgudRelay.rateLimited`):
/// its status, fields and body.
struct RelayedAnswer: HTTPResponseError {
    let status: HTTPStatus
    let responseHeaders: HTTPHeaders
    let responseBody: [UInt8]
}
