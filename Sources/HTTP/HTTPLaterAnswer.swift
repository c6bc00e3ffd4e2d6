import System

/// Where an answer an `HTTPImmediateResponder` promised `later` goes: the
/// connection its request came on. Send once; an answer for a connection
/// that has closed since, or a second one, is dropped.
/// `@unchecked Sendable`: the connection is touched only on its loop's
/// thread; `send` from any other queues the answer there.
public struct HTTPLaterAnswer: @unchecked Sendable {
    private enum Target {
        case connection(HTTPConnection, request: UInt64)
        case handler(@Sendable (HTTPResponse) -> Void)
    }

    private let target: Target

    init(connection: HTTPConnection, request: UInt64) {
        target = .connection(connection, request: request)
    }

    /// An answer that goes to `handler` instead of a connection (a
    /// responder's tests).
    public init(_ handler: @escaping @Sendable (HTTPResponse) -> Void) {
        target = .handler(handler)
    }

    /// Sends at once on the connection's loop thread, else queues it there.
    public func send(_ response: HTTPResponse) {
        switch target {
        case .connection(let connection, let request):
            guard connection.loop.inLoop else { return connection.loop.execute { [self] in send(response) } }
            connection.answerLater(response, request: request)
        case .handler(let handler):
            handler(response)
        }
    }
}
