import System
import HTTPCodec

/// A request as a handler sees it: the parsed head, the body as a stream,
/// and where it came from.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: HTTPRequestBody
    /// The TCP peer (before any forwarded-address resolution).
    public var peer: SocketAddress?

    public init(head: HTTPRequestHead, body: HTTPRequestBody = .empty, peer: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.peer = peer
    }

    public var method: HTTPMethod { head.method }
    public var headers: HTTPHeaders { head.headers }
    public var path: Substring { head.path }
}

/// Why a request body could not be read.
public enum HTTPBodyError: Error, Equatable, Sendable {
    /// The body is longer than the limit the reader set.
    case tooLarge
    /// The client stopped sending for longer than the body timeout, or its
    /// body fell behind the minimum rate.
    case timedOut
    /// The connection closed before the body was complete.
    case connectionClosed
}

/// A request body, delivered in pieces as it arrives. Reading is optional:
/// a handler that answers without reading it makes the connection close
/// after the response unless the body had already arrived in full.
public struct HTTPRequestBody: Sendable {
    let stream: RequestBodyStream?
    /// The declared length, when the request used Content-Length.
    public let declaredLength: Int?

    init(stream: RequestBodyStream?, declaredLength: Int?) {
        self.stream = stream
        self.declaredLength = declaredLength
    }

    /// A body with no bytes.
    public static let empty = HTTPRequestBody(stream: nil, declaredLength: 0)

    /// A complete body held in memory (for tests and internal requests).
    public static func bytes(_ bytes: [UInt8]) -> HTTPRequestBody {
        HTTPRequestBody(stream: RequestBodyStream(complete: bytes), declaredLength: bytes.count)
    }

    /// The next piece of the body, or nil at its end.
    public func next() async throws(HTTPBodyError) -> [UInt8]? {
        guard let stream else { return nil }
        return try await stream.next()
    }

    /// Reads the whole body, refusing one longer than `limit` bytes (a
    /// declared length over the limit is refused before anything is read).
    public func collect(upTo limit: Int) async throws(HTTPBodyError) -> [UInt8] {
        if let declaredLength, declaredLength > limit { throw .tooLarge }
        var bytes: [UInt8] = []
        while let piece = try await next() {
            guard bytes.count + piece.count <= limit else { throw .tooLarge }
            if bytes.isEmpty { bytes = piece } else { bytes.append(contentsOf: piece) } // one piece: no copy
        }
        return bytes
    }
}
