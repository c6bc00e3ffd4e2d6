import Core

/// One header field as it arrived or will be sent.
public struct HTTPField: Sendable, Equatable {
    /// The field's name, with its case as given.
    public var name: String
    /// The field's value, as it arrived or will be sent.
    public var value: String

    /// The field `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields with case-insensitive lookup.
///
/// Kept as bytes, in one buffer: first a table saying where each field's
/// name and value sit, then every name and value back to back. A message's
/// fields are visited several times on their way through the gateway
/// (checked, filtered, copied upstream, written out); over bytes none of
/// that counts references or allocates per field, where a pair of
/// `String`s per field cost a retain and a release per visit and an
/// allocation per long value, and the one buffer is one allocation per
/// message. `String`s are made only when asked for (`subscript`, `fields`,
/// iteration); the hot paths use the byte accessors in
/// HTTPHeaders+Bytes.swift.
///
/// Bytes are kept as they came: a parsed field with bytes that are not
/// UTF-8 (obs-text) is relayed unchanged, and only its `String` form
/// carries replacement characters.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The table, `tableCapacity` entries of `entrySize` bytes (three
    /// `UInt32`s: where the name starts, counted from the end of the table,
    /// the name's length and the value's, which follows the name), then
    /// the names and values up to `end`, then zeroed room for more (so a
    /// field is written in place, with one check of the buffer's
    /// uniqueness, instead of appended piece by piece).
    @usableFromInline var storage: [UInt8]
    @usableFromInline var tableCapacity: Int
    @usableFromInline var end: Int
    /// How many fields there are.
    public internal(set) var count: Int

    @usableFromInline static let entrySize = 12

    /// Empty, with no buffer allocated.
    public init() {
        storage = []
        tableCapacity = 0
        end = 0
        count = 0
    }

    /// Empty, with room for `capacity` fields whose names and values take
    /// `byteCapacity` bytes in all (by default 32 each).
    public init(capacity: Int, byteCapacity: Int? = nil) {
        storage = Self.zeroed(capacity * Self.entrySize + (byteCapacity ?? capacity * 32))
        tableCapacity = capacity
        end = capacity * Self.entrySize
        count = 0
    }

    /// The fields of `fields`, in order, in one buffer sized for them.
    public init(_ fields: [HTTPField]) {
        self.init(capacity: fields.count)
        for field in fields { add(field.name, field.value) }
    }

    /// The literal's fields, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(capacity: elements.count)
        for (name, value) in elements { add(name, value) }
    }

    /// `count` zero bytes. Through `reserveCapacity`, which the compiler
    /// specializes for `UInt8`, and a copy from the stack: `init(repeating:
    /// count:)` looks the array's storage type up at run time, some 500
    /// instructions per buffer on this path.
    static func zeroed(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { zeros in
            zeros.initialize(repeating: 0)
            bytes.append(contentsOf: zeros)
        }
        return bytes
    }

    /// Where the names and values start in `storage`.
    @inlinable var namesStart: Int { tableCapacity * Self.entrySize }

    /// The bytes the fields' names and values take.
    public var byteCount: Int { end - namesStart }

    /// The fields as `String` pairs, in order.
    public var fields: [HTTPField] { (0..<count).map(field) }

    /// Field `index` as `String`s.
    public func field(at index: Int) -> HTTPField {
        withField(at: index) { name, value in
            HTTPField(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    /// Field `index`'s name as a `String`.
    public func name(at index: Int) -> String {
        withField(at: index) { name, _ in String(decoding: name, as: UTF8.self) }
    }

    /// Field `index`'s value as a `String`.
    public func value(at index: Int) -> String {
        withField(at: index) { _, value in String(decoding: value, as: UTF8.self) }
    }

    /// An iterator over the fields, in order, made into `String`s as it goes.
    public func makeIterator() -> Iterator { Iterator(headers: self) }

    /// The fields in order, each made into `String`s as it is reached.
    public struct Iterator: IteratorProtocol {
        let headers: HTTPHeaders
        var index = 0

        /// The next field as `String`s, or nil after the last.
        public mutating func next() -> HTTPField? {
            guard index < headers.count else { return nil }
            defer { index += 1 }
            return headers.field(at: index)
        }
    }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        firstIndex(named: name).map(value)
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        (0..<count).filter { nameEquals(at: $0, name) }.map(value)
    }

    /// Whether a field is called `name`, compared case-insensitively.
    public func contains(_ name: String) -> Bool { firstIndex(named: name) != nil }

    /// Appends the field `name: value` after the others.
    public mutating func add(_ name: String, _ value: String) {
        name.withContiguousUTF8 { name in value.withContiguousUTF8 { value in add(name: name, value: value) } }
    }

    /// Replaces every field called `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field called `name`, compared case-insensitively.
    public mutating func remove(_ name: String) {
        guard firstIndex(named: name) != nil else { return }
        self = kept { !nameEquals(at: $0, name) }
    }

    /// Removes every field that `shouldRemove` accepts, each passed to it as an `HTTPField`.
    public mutating func removeAll(where shouldRemove: (HTTPField) -> Bool) {
        self = kept { !shouldRemove(field(at: $0)) }
    }

    /// The fields whose index `keep` accepts, in a buffer of their own
    /// with room for one more (`set` adds one right after).
    private func kept(_ keep: (Int) -> Bool) -> HTTPHeaders {
        var kept = HTTPHeaders(capacity: count + 1, byteCapacity: byteCount + 64)
        for index in 0..<count where keep(index) { kept.add(fieldAt: index, of: self) }
        return kept
    }
}

extension HTTPHeaders: Equatable {
    /// The same fields, byte for byte, in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count {
            let same = lhs.withField(at: index) { name, value in
                rhs.withField(at: index) { otherName, otherValue in
                    name.elementsEqual(otherName) && value.elementsEqual(otherValue)
                }
            }
            if !same { return false }
        }
        return true
    }
}

extension String {
    /// ASCII case-insensitive equality of two strings, always inlined:
    /// header lookups compare a name against every field, and an opaque
    /// call would retain each field's name around it.
    @inlinable @inline(__always)
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.count == other.utf8.count
            && withContiguousUTF8 { x in other.withContiguousUTF8 { y in Self.equalIgnoringASCIICase(x, y) } }
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, without allocating.
    @inlinable
    public func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Over the contiguous bytes when both have them (native strings
        // do): an indexed loop instead of two view iterators.
        if let result = a.withContiguousStorageIfAvailable({ x in
            b.withContiguousStorageIfAvailable { y in Self.equalIgnoringASCIICase(x, y) }
        }), let result { return result }
        for (x, y) in zip(a, b) where x != y {
            let lx = x | 0x20, ly = y | 0x20
            guard lx == ly, lx >= 0x61, lx <= 0x7A else { return false }
        }
        return true
    }

    /// ASCII case-insensitive equality of two byte strings.
    @inlinable
    public static func equalIgnoringASCIICase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] {
            let lx = a[index] | 0x20, ly = b[index] | 0x20
            guard lx == ly, lx >= 0x61, lx <= 0x7A else { return false }
        }
        return true
    }

    /// Without leading and trailing spaces and tabs (HTTP's optional
    /// whitespace around field values and list items).
    public var trimmingSpacesAndTabs: Substring {
        // By bytes: space and tab are never part of a longer character here.
        var text = Substring(self).utf8[...]
        while let first = text.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        return Substring(text)
    }
}
