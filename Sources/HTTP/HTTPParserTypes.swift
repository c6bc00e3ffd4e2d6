/// Limits the request parser enforces; every one is configurable.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Request line plus header section, in bytes (431 past it).
    public var maxHeaderBytes: Int
    /// Number of header fields (431 past it).
    public var maxHeaderFields: Int
    /// Length of the request target (414 past it).
    public var maxTargetLength: Int
    /// One chunk-size line including extensions (400 past it).
    public var maxChunkLineBytes: Int

    public init(maxHeaderBytes: Int = 16 * 1024, maxHeaderFields: Int = 100,
                maxTargetLength: Int = 8 * 1024, maxChunkLineBytes: Int = 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderFields = maxHeaderFields
        self.maxTargetLength = maxTargetLength
        self.maxChunkLineBytes = maxChunkLineBytes
    }
}

/// What the parser found in the bytes it was given.
public enum HTTPParserEvent: Equatable, Sendable {
    /// Nothing complete yet: call again with the unconsumed bytes plus more.
    case needMore
    /// A request line and header section.
    case head(HTTPRequestHead)
    /// Body bytes: this range of the buffer passed to `parse` (already
    /// de-chunked), included in `consumed`.
    case body(Range<Int>)
    /// The request (head and any body) is complete; the parser is ready for
    /// the next request on the connection.
    case end
}
