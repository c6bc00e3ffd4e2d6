import HTTPCodec

/// What a handler answers.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: HTTPResponseBody

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: HTTPResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a complete body of bytes.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }
}

/// Writes one streamed response body. Each `write` may suspend until the
/// connection has sent enough of what is already queued (back-pressure).
public protocol HTTPBodyWriter: Sendable {
    func write(_ bytes: [UInt8]) async throws
}

/// The body of a response.
public enum HTTPResponseBody: Sendable {
    case empty
    case bytes([UInt8])
    /// A body produced while it is sent: with a known length (sent with
    /// Content-Length) or without (chunked on HTTP/1.1). A producer that
    /// throws aborts the connection, so the client sees a truncated body
    /// rather than a wrong one.
    case stream(length: Int?, producer: HTTPBodyProducer)
}

/// Writes a streamed body through the writer it is given; runs in the task
/// that answered the request, on the connection's loop.
public typealias HTTPBodyProducer = @Sendable (any HTTPBodyWriter) async throws -> Void

/// The connection is gone or the response was aborted.
public struct HTTPWriteError: Error, Sendable, Equatable {
    public init() {}
}
