/// A fixed set of header field names, matched ignoring ASCII case without
/// lower-casing anything: the names are kept lower-case and bucketed by
/// length, so most fields are turned away by their length alone.
public struct FieldNameSet: Sendable {
    /// Lower-case names by their length in bytes.
    @usableFromInline let byLength: [[[UInt8]]]

    public init(_ names: [String]) {
        var buckets = [[[UInt8]]](repeating: [], count: (names.map(\.utf8.count).max() ?? 0) + 1)
        for name in names {
            buckets[name.utf8.count].append(name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        }
        byLength = buckets
    }

    /// Inlinable, so callers in other modules get it specialized for
    /// `String` and `Substring` instead of the generic entry point.
    @inlinable
    public func contains(_ name: some StringProtocol) -> Bool {
        let count = name.utf8.count
        guard count < byLength.count, !byLength[count].isEmpty else { return false }
        return byLength[count].contains { candidate in
            candidate.withUnsafeBufferPointer { candidate in
                name.utf8.withContiguousStorageIfAvailable { String.equalIgnoringASCIICase($0, candidate) }
                    ?? name.equalsIgnoringASCIICase(String(decoding: candidate, as: UTF8.self))
            }
        }
    }
}
