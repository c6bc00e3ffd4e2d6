/// Bounds on what `JSON.parse` accepts, so that a hostile document costs
/// little: it is refused as soon as it passes one.
public struct JSONLimits: Sendable, Hashable {
    /// Arrays and objects inside one another at most; a scalar at the top
    /// is depth 0, `[]` depth 1. Parsing recurses, so values above
    /// ``depthCeiling`` act as the ceiling.
    public var maxDepth: Int
    /// The whole document's size in bytes.
    public var maxBytes: Int
    /// One string's (or key's) size in bytes of UTF-8, after unescaping.
    public var maxStringBytes: Int

    /// The deepest nesting any limits allow: 512.
    public static let depthCeiling = 512

    /// Defaults for API messages: depth 64, 1 MiB, strings of 64 KiB.
    public init(maxDepth: Int = 64, maxBytes: Int = 1 << 20, maxStringBytes: Int = 64 << 10) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxStringBytes = maxStringBytes
    }
}
