import Core

/// One header field as it arrived or will be sent.
public struct HTTPField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPField]

    public init() { fields = [] }

    public init(_ fields: [HTTPField]) { self.fields = fields }

    /// Empty, with room for `capacity` fields.
    public init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    // Inlinable, here and below: other modules iterate and search headers
    // on every request, and an opaque call would go through the generic
    // Sequence witnesses, copying each field through value witnesses.
    @inlinable public var count: Int { fields.count }

    @inlinable public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }

    /// The first value of `name`, compared case-insensitively.
    @inlinable public subscript(name: String) -> String? {
        for field in fields where field.name.equalsIgnoringASCIICase(name) { return field.value }
        return nil
    }

    /// Every value of `name`, in order.
    @inlinable public func values(_ name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    @inlinable public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Replaces every field called `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    public mutating func removeAll(where shouldRemove: (HTTPField) -> Bool) {
        fields.removeAll(where: shouldRemove)
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
