/// Why an upstream request failed. Descriptions name the failure only:
/// never the URL, a header value or a body, which may carry secrets.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host could not be resolved or did not accept a connection.
    case connectFailed
    /// A timeout passed. `requestSent` false: the request was not fully
    /// sent, so the server cannot have acted on it and it may be retried.
    /// `requestSent` true: it was, and the outcome is UNKNOWN; a
    /// non-idempotent call (a refresh-token redemption) may have taken
    /// effect.
    case timedOut(requestSent: Bool)
    /// The response body passed the size limit; the transfer was aborted.
    case responseTooLarge
    /// The TLS handshake failed: an untrusted or mismatched certificate, or
    /// no common protocol.
    case tls
    /// The URL is malformed or not `http`/`https`.
    case invalidURL
    /// A method or header that cannot be sent as is (control characters,
    /// a name that is not a token).
    case invalidRequest
    /// The streamed request body's source threw, ended before its declared
    /// length or ran past it.
    case requestBodyFailed
    /// The awaiting task was cancelled, the body consumer gave up, or the
    /// client was shut down.
    case cancelled
    /// The server's answer broke HTTP/1.1 framing or syntax: its head is
    /// read as strictly on libcurl's path as on the client's own
    /// connections, which refuse what could desynchronise them.
    case invalidResponse
    /// The server closed the connection (or reset it) before the response
    /// was complete.
    case connectionClosed
    /// Any other libcurl failure, by its CURLcode (for example 52: the
    /// server closed the connection without answering; 56: the connection
    /// broke while receiving).
    case other(code: Int)

    public var description: String {
        switch self {
        case .connectFailed: "upstream connection failed"
        case .timedOut(let sent): sent ? "upstream timed out after the request was sent (outcome unknown)"
                                       : "upstream timed out before the request was sent"
        case .responseTooLarge: "upstream response too large"
        case .tls: "upstream TLS handshake failed"
        case .invalidURL: "invalid upstream URL"
        case .invalidRequest: "invalid upstream request method or header"
        case .requestBodyFailed: "request body source failed"
        case .cancelled: "upstream request cancelled"
        case .invalidResponse: "upstream sent a malformed response"
        case .connectionClosed: "upstream closed the connection before the response was complete"
        case .other(let code): "upstream request failed (curl code \(code))"
        }
    }

    /// Whether the server may have received the whole request and acted on
    /// it. False only when that is certain not to have happened; a caller
    /// must treat true as an unknown outcome for non-idempotent calls.
    public var requestMayHaveBeenProcessed: Bool {
        switch self {
        case .connectFailed, .tls, .invalidURL, .invalidRequest, .requestBodyFailed: false
        case .timedOut(let sent): sent
        case .responseTooLarge, .cancelled, .invalidResponse, .connectionClosed, .other: true
        }
    }
}
