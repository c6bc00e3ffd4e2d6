import System

/// Where an answer an `HTTPImmediateResponder` promised `later` goes: the
/// connection its request came on. Send once; an answer for a connection
/// that has closed since, or a second one, is dropped. The connection is
/// reached through `LoopBound`: on its loop's thread at once, from any
/// other thread queued there.
public struct HTTPLaterAnswer: Sendable {
    private enum Target {
        case connection(LoopBound<HTTPConnection>, request: UInt64)
        case handler(@Sendable (HTTPResponse) -> Void)
    }

    private let target: Target

    init(connection: HTTPConnection, request: UInt64) {
        target = .connection(LoopBound(connection, loop: connection.loop), request: request)
    }

    /// An answer that goes to `handler` instead of a connection (a
    /// responder's tests).
    public init(_ handler: @escaping @Sendable (HTTPResponse) -> Void) {
        target = .handler(handler)
    }

    /// Sends at once on the connection's loop thread, else queues it there.
    public func send(_ response: HTTPResponse) {
        switch target {
        case .connection(let bound, let request):
            guard let connection = bound.valueIfInLoop else {
                return bound.later { $0.answerLater(response, request: request) }
            }
            connection.answerLater(response, request: request)
        case .handler(let handler):
            handler(response)
        }
    }
}
