/// Why a message was refused by the codec or a parser built on it. A
/// server answers `status` and closes; a client refuses the response.
/// `reason` is a short fixed phrase for logs; it never quotes the input.
public struct HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status a server answers with.
    public let status: HTTPStatus
    /// A short fixed phrase for logs.
    public let reason: String

    /// A refusal with `status` and `reason`.
    @inlinable
    public init(_ status: HTTPStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// The status code and the reason, as logs print them.
    public var description: String { "\(status.code) \(reason)" }
}

extension HTTPParseError {
    /// A 400 refusal with a fixed reason.
    @inlinable
    public static func malformed(_ reason: String) -> HTTPParseError {
        HTTPParseError(.badRequest, reason)
    }
}
