/// The members of a JSON object: keys in order, each key at most once.
///
/// Keys are compared as Swift strings, so two spellings of the same
/// characters (precomposed `é` and `e` + combining accent) are the same key.
/// Lookups scan the pairs; objects in API messages are small.
///
/// Every way to build one keeps the keys unique: the parser refuses
/// duplicates, a literal with a repeated key traps (as `Dictionary`'s does),
/// and assigning through ``subscript(_:)`` replaces the earlier value in its
/// place. So a serialized object never repeats a key either.
public struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var pairs: [(key: String, value: JSON)]

    /// An empty object.
    public init() { pairs = [] }

    /// Keys in the order written; a repeated key traps.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(literalPairs: elements)
    }

    init(literalPairs elements: [(String, JSON)]) {
        pairs = []
        pairs.reserveCapacity(elements.count)
        for (key, value) in elements {
            precondition(index(of: key) == nil, "JSON object literal repeats a key")
            pairs.append((key, value))
        }
    }

    /// Pairs the parser has already checked for repeated keys.
    init(uniquePairs: [(key: String, value: JSON)]) { pairs = uniquePairs }

    /// The number of keys.
    public var count: Int { pairs.count }
    public var isEmpty: Bool { pairs.isEmpty }
    /// The keys in order.
    public var keys: [String] { pairs.map(\.key) }

    /// Iterates the pairs in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> { pairs.makeIterator() }

    /// The value of `key` (exact match); assigning replaces it in place,
    /// appends a new key at the end, or with `nil` removes the key.
    public subscript(key: String) -> JSON? {
        get { index(of: key).map { pairs[$0].value } }
        set {
            switch (index(of: key), newValue) {
            case let (position?, value?): pairs[position].value = value
            case let (position?, nil): pairs.remove(at: position)
            case let (nil, value?): pairs.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// The value of the one key equal to `key` when ASCII letters are
    /// compared without case (`userId`, `UserId`, `USERID`), for answers
    /// whose key style differs from ours. `nil` when no key matches **or
    /// when several do**: an ambiguous answer is refused rather than read
    /// one way here and another elsewhere. Non-ASCII characters must match
    /// exactly.
    public func value(forKeyIgnoringCase key: String) -> JSON? {
        var found: JSON?
        for pair in pairs where Self.equalIgnoringASCIICase(pair.key, key) {
            guard found == nil else { return nil }
            found = pair.value
        }
        return found
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    private func index(of key: String) -> Int? {
        pairs.firstIndex { $0.key == key }
    }

    static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
}

extension JSONObject: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The shape only, like ``JSON``'s: `JSON object (3 keys)`.
    public var description: String { JSON.object(self).description }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
