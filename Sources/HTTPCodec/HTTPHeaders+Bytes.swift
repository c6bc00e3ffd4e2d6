import Core

/// The byte accessors: what the parsers, the writers and the proxy use, so
/// that a field passing through is never made into a `String`.
extension HTTPHeaders {
    /// Field `index`'s name and value lengths, and where its name starts in `storage`.
    @inlinable
    func entry(_ index: Int) -> (nameStart: Int, nameCount: Int, valueCount: Int) {
        precondition(index >= 0 && index < count, "header field index out of range")
        return storage.withUnsafeBytes { raw in
            let offset = index * Self.entrySize
            return (namesStart + Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                    Int(raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)),
                    Int(raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self) & ~Self.checkedBit))
        }
    }

    /// Set in a table entry's value length when the field was checked as it
    /// was added (`add(checkedName:value:)`).
    @usableFromInline static let checkedBit: UInt32 = 1 << 31

    /// Whether field `index` was checked when it was added: its name a
    /// token, its value free of control characters but HTAB (RFC 9110
    /// §5.5, what the parsers accept). Such a field is not checked again
    /// on its way out (`RequestValidation`, `ResponseHead`), nor is a copy
    /// of it (`add(fieldAt:of:)`).
    public func isChecked(at index: Int) -> Bool {
        precondition(index >= 0 && index < count, "header field index out of range")
        return storage.withUnsafeBytes { raw in
            raw.loadUnaligned(fromByteOffset: index * Self.entrySize + 8, as: UInt32.self) & Self.checkedBit != 0
        }
    }

    /// Calls `body` with field `index`'s name and value bytes.
    @inlinable
    public func withField<R>(at index: Int,
                             _ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) throws -> R)
        rethrows -> R
    {
        let (start, nameCount, valueCount) = entry(index)
        return try storage.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[start..<(start + nameCount)]),
                     UnsafeBufferPointer(rebasing: all[(start + nameCount)..<(start + nameCount + valueCount)]))
        }
    }

    /// Whether field `index` is called `name`, ignoring ASCII case.
    @inlinable
    public func nameEquals(at index: Int, _ name: some StringProtocol) -> Bool {
        // The length first, from the table: most fields differ there and
        // need no access to their bytes (Docs/performance.md).
        guard entry(index).nameCount == name.utf8.count else { return false }
        return name.withContiguousUTF8 { expected in
            withField(at: index) { bytes, _ in String.equalIgnoringASCIICase(bytes, expected) }
        }
    }

    /// Whether field `index` is called `name`, given in lower case, ignoring ASCII case.
    @inlinable
    public func nameEquals(at index: Int, lowercase name: StaticString) -> Bool {
        guard entry(index).nameCount == name.utf8CodeUnitCount else { return false }
        return withField(at: index) { bytes, _ in Self.equals(bytes, lowercase: name) }
    }

    /// Whether field `index`'s value is `value`, given in lower case, ignoring ASCII case.
    @inlinable
    public func valueEquals(at index: Int, lowercase value: StaticString) -> Bool {
        withField(at: index) { _, bytes in Self.equals(bytes, lowercase: value) }
    }

    /// Whether `bytes` are `lowercase` (lower-case ASCII), ignoring ASCII case.
    @inlinable
    public static func equals(_ bytes: UnsafeBufferPointer<UInt8>, lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[offset] { return false }
        }
        return true
    }

    /// The index of the first field called `name`, ignoring ASCII case.
    @inlinable
    public func firstIndex(named name: some StringProtocol) -> Int? {
        (0..<count).first { nameEquals(at: $0, name) }
    }

    /// `bytes` as a plain decimal: digits only (no sign, no blanks), at most
    /// 18 of them so that it cannot overflow; nil for anything else. How a
    /// `Content-Length` value is read.
    @inlinable
    public static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for digit in bytes {
            guard digit >= 0x30, digit <= 0x39 else { return nil }
            value = value * 10 + Int(digit &- 0x30)
        }
        return value
    }

    /// Whether field `index`'s value is exactly `expected`.
    @inlinable
    public func valueEquals(at index: Int, _ expected: StaticString) -> Bool {
        withField(at: index) { _, value in
            value.elementsEqual(UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount))
        }
    }

    /// `name: value\r\n`'s size for field `index`.
    @inlinable
    public func lineSize(at index: Int) -> Int {
        let (_, nameCount, valueCount) = entry(index)
        return nameCount + valueCount + 4
    }

    /// Appends a field from its bytes, as given.
    public mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        add(name: name, value: value, checked: false)
    }

    /// Appends a field from its bytes, which the caller has checked: `name`
    /// a token, `value` free of control characters but HTAB, as the
    /// request and response parsers accept them (see `isChecked(at:)`).
    public mutating func add(checkedName name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        add(name: name, value: value, checked: true)
    }

    /// `add(checkedName:value:)` over raw bytes, which the caller has checked the same way.
    public mutating func add(checkedName name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        add(name: name.assumingMemoryBound(to: UInt8.self), value: value.assumingMemoryBound(to: UInt8.self), checked: true)
    }

    private mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, checked: Bool) {
        appendField(nameCount: name.count, valueCount: value.count, checked: checked) { at in
            Self.copy(name, to: at)
            Self.copy(value, to: at + name.count)
        }
    }

    /// Appends `name: prefix value` (a credential with its scheme, say)
    /// without joining the two into a `String` first. `checked`: the caller
    /// vouches that `name` is a token and `prefix` and `value` hold no
    /// control character but HTAB (see `isChecked(at:)`), because it
    /// checked them or made them so.
    public mutating func add(_ name: StaticString, _ prefix: StaticString, _ value: String, checked: Bool = false) {
        let (nameCount, prefixCount) = (name.utf8CodeUnitCount, prefix.utf8CodeUnitCount)
        value.withContiguousUTF8 { value in
            appendField(nameCount: nameCount, valueCount: prefixCount + value.count, checked: checked) { at in
                Self.copy(UnsafeBufferPointer(start: name.utf8Start, count: nameCount), to: at)
                Self.copy(UnsafeBufferPointer(start: prefix.utf8Start, count: prefixCount), to: at + nameCount)
                Self.copy(value, to: at + nameCount + prefixCount)
            }
        }
    }

    /// Appends a field from its raw bytes, as given.
    public mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        add(name: name.assumingMemoryBound(to: UInt8.self), value: value.assumingMemoryBound(to: UInt8.self))
    }

    /// Removes, in place, every field that `remove` picks by its name and
    /// value bytes (valid during the call only). The fields after a removed
    /// one move up in the table; the removed one's bytes stay in the
    /// buffer, unused. In place when the buffer is not shared: a relayed
    /// response's fields are filtered without a second buffer.
    public mutating func removeFields(
        where remove: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        guard count > 0 else { return }
        let (total, namesStart) = (count, self.namesStart)
        var kept = 0
        storage.withUnsafeMutableBytes { raw in
            let table = raw.baseAddress!
            let bytes = table.assumingMemoryBound(to: UInt8.self)
            for index in 0..<total {
                let offset = index * Self.entrySize
                let start = namesStart + Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let nameCount = Int(raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                let valueCount = Int(raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self) & ~Self.checkedBit)
                if remove(UnsafeBufferPointer(start: bytes + start, count: nameCount),
                          UnsafeBufferPointer(start: bytes + start + nameCount, count: valueCount)) { continue }
                if kept != index {
                    (table + kept * Self.entrySize).copyMemory(from: table + offset, byteCount: Self.entrySize)
                }
                kept += 1
            }
        }
        count = kept
    }

    /// Appends a copy of `other`'s field `index`, checked if it was.
    public mutating func add(fieldAt index: Int, of other: HTTPHeaders) {
        let checked = other.isChecked(at: index)
        other.withField(at: index) { name, value in add(name: name, value: value, checked: checked) }
    }

    /// Appends a table entry and the field's bytes, which `write` writes
    /// from the pointer it is given, all in one access to the buffer.
    private mutating func appendField(nameCount: Int, valueCount: Int, checked: Bool = false,
                                      _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        if count == tableCapacity { growTable() }
        let size = nameCount + valueCount
        if end + size > storage.count { growBytes(to: end + size) }
        let nameStart = byteCount
        precondition(nameStart + size < Int(Self.checkedBit), "header fields too large")
        let (offset, at) = (count * Self.entrySize, end)
        storage.withUnsafeMutableBufferPointer { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: UInt32(nameStart), toByteOffset: offset, as: UInt32.self)
            raw.storeBytes(of: UInt32(nameCount), toByteOffset: offset + 4, as: UInt32.self)
            raw.storeBytes(of: UInt32(valueCount) | (checked ? Self.checkedBit : 0), toByteOffset: offset + 8, as: UInt32.self)
            if let base = buffer.baseAddress { write(base + at) }
        }
        end += size
        count += 1
    }

    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) {
        if let base = bytes.baseAddress { target.update(from: base, count: bytes.count) }
    }

    /// Room for twice as many table entries (at least 8); the names and
    /// values move up behind them.
    private mutating func growTable() {
        let capacity = Swift.max(8, tableCapacity * 2)
        let (tableBytes, names) = (capacity * Self.entrySize, byteCount)
        var grown = Self.zeroed(tableBytes + Swift.max(names * 2, 64))
        grown.withUnsafeMutableBufferPointer { target in
            storage.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                to.update(from: from, count: count * Self.entrySize)
                (to + tableBytes).update(from: from + namesStart, count: names)
            }
        }
        storage = grown
        tableCapacity = capacity
        end = tableBytes + names
    }

    /// Room for at least `needed` bytes in all, twice the buffer's size at least.
    private mutating func growBytes(to needed: Int) {
        var grown = Self.zeroed(Swift.max(needed, storage.count * 2))
        grown.withUnsafeMutableBufferPointer { target in
            storage.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                to.update(from: from, count: end)
            }
        }
        storage = grown
    }
}
