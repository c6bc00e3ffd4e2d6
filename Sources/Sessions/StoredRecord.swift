/// What the byte store keeps under one key: opaque (sealed) bytes, the
/// fencing version, and the absolute expiry no time to live may pass.
public struct StoredRecord: Sendable, Hashable, CustomStringConvertible {
    /// The record's content; the store never looks inside.
    public var bytes: [UInt8]
    /// The fencing version: 1 for a fresh record, incremented by every
    /// `compareAndSet`.
    public var version: UInt64
    /// Unix time in milliseconds after which the record must not exist.
    public var absoluteExpiry: UInt64

    /// A record with the given content, version and absolute expiry.
    public init(bytes: [UInt8], version: UInt64 = 1, absoluteExpiry: UInt64) {
        self.bytes = bytes
        self.version = version
        self.absoluteExpiry = absoluteExpiry
    }

    /// The time to live a store gives this record: `ttl` cut at the
    /// absolute expiry, in milliseconds from `now` (Unix ms). Zero or less
    /// means the record must not be stored.
    public func timeToLive(_ ttl: Duration, now: UInt64) -> Int64 {
        let left = absoluteExpiry >= now
            ? Int64(clamping: absoluteExpiry - now) : -Int64(clamping: now - absoluteExpiry)
        return min(ttl.wholeMilliseconds, left)
    }

    /// Sizes and times only, never the bytes.
    public var description: String {
        "StoredRecord(\(bytes.count) bytes, version \(version), absoluteExpiry \(absoluteExpiry))"
    }
}
