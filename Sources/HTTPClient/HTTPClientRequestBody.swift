/// A request body produced while it is sent: `next` is called for each
/// piece until it returns nil (the end) or throws (the transfer is aborted
/// with `.requestBodyFailed`). At most one piece is asked for at a time,
/// and only while the client's buffer has room, so memory stays bounded.
public struct HTTPClientRequestBody: Sendable {
    /// The total length, sent as `Content-Length`; nil sends the body
    /// chunked. A source that ends early or runs long fails the transfer.
    public var length: Int?
    /// The source: the next piece, or nil at the end.
    public var next: @Sendable () async throws -> [UInt8]?

    /// A body of `length` bytes (nil: unknown) pulled from `next`.
    public init(length: Int?, next: @escaping @Sendable () async throws -> [UInt8]?) {
        self.length = length
        self.next = next
    }
}
