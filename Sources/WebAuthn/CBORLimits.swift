/// Bounds on what the CBOR decoder accepts, so a hostile input costs little.
public struct CBORLimits: Sendable, Hashable {
    /// Arrays and maps inside one another at most; a scalar is depth 0.
    /// Decoding recurses, so values above ``depthCeiling`` act as it.
    public var maxDepth: Int
    /// The whole input's size in bytes.
    public var maxBytes: Int
    /// Elements of one array, or entries of one map.
    public var maxElements: Int
    /// One byte or text string's length in bytes.
    public var maxStringBytes: Int

    /// The deepest nesting any limits allow: 64.
    public static let depthCeiling = 64

    /// Defaults that fit WebAuthn: depth 8, 64 KiB, 256 elements, strings of
    /// 16 KiB (an attestation statement with certificates fits).
    public init(maxDepth: Int = 8, maxBytes: Int = 64 << 10, maxElements: Int = 256, maxStringBytes: Int = 16 << 10) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxElements = maxElements
        self.maxStringBytes = maxStringBytes
    }
}
