import Core

/// A fixed set of header field names, matched ignoring ASCII case without
/// lower-casing anything: the names are kept lower-case and grouped by
/// length, so most fields are turned away by their length alone.
public struct FieldNameSet: Sendable {
    /// Every name, lower-case, back to back, shortest first: the names of
    /// one length sit together, each exactly that many bytes long. One
    /// flat array, so a lookup reads one buffer instead of retaining an
    /// array per candidate.
    @usableFromInline let bytes: [UInt8]
    /// `groups[n]`: where the names of `n` bytes start in `bytes`, and how
    /// many there are.
    @usableFromInline let groups: [(start: Int, count: Int)]

    /// The set of `names`, kept lower-case, each once.
    public init(_ names: [String]) {
        let lowered = Set(names.map { name in name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } })
            .sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
        var groups = [(start: Int, count: Int)](repeating: (0, 0), count: (lowered.last?.count ?? 0) + 1)
        var bytes: [UInt8] = []
        for name in lowered {
            if groups[name.count].count == 0 { groups[name.count].start = bytes.count }
            groups[name.count].count += 1
            bytes += name
        }
        self.bytes = bytes
        self.groups = groups
    }

    /// Inlinable, so callers in other modules get it specialized for
    /// `String` and `Substring` instead of the generic entry point.
    @inlinable
    public func contains(_ name: some StringProtocol) -> Bool {
        let length = name.utf8.count
        guard length < groups.count, groups[length].count > 0 else { return false }
        return name.withContiguousUTF8 { contains($0) }
    }

    /// Whether `name`'s bytes are one of the names, ignoring ASCII case.
    @inlinable
    public func contains(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = name.count
        guard length < groups.count, groups[length].count > 0 else { return false }
        let group = groups[length]
        return bytes.withUnsafeBufferPointer { all in
            for index in 0..<group.count {
                let start = group.start + index * length
                if String.equalIgnoringASCIICase(name, UnsafeBufferPointer(rebasing: all[start..<(start + length)])) {
                    return true
                }
            }
            return false
        }
    }
}
