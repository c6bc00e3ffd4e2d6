/// Why one value was refused: a sentence for a ``ConfigError``, written so
/// that it never repeats a password or secret.
struct ValueProblem: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Small text checks shared by the parsers.
enum Lexical {
    /// A decimal port: digits only, no sign, at most 65535; 0 only if allowed.
    static func port(_ text: Substring, allowZero: Bool) -> UInt16? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy(isDigit),
              let value = UInt16(text), allowZero || value != 0 else { return nil }
        return value
    }

    /// A non-negative decimal integer without sign or leading zeros.
    static func unsignedInteger(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(isDigit),
              text == "0" || text.first != "0" else { return nil }
        return Int(text)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `text` without leading and trailing white space: the Unicode
    /// `White_Space` characters (blanks, tab, no-break spaces…) and U+200B
    /// ZERO WIDTH SPACE, with the line breaks (LF, VT, FF, CR, NEL, U+2028,
    /// U+2029) only when `newlines` is set. These are exactly Foundation's
    /// `.whitespacesAndNewlines` and `.whitespaces`, which this replaces.
    static func trimmingWhitespace(_ text: Substring, newlines: Bool) -> String {
        func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar.properties.isWhitespace || scalar.value == 0x200B else { return false }
            return newlines || !((0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85
                || scalar.value == 0x2028 || scalar.value == 0x2029)
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// An HTTP token character (RFC 9110 §5.6.2 `tchar`).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// A host name as used in URLs here: labels of letters, digits, `-` and
    /// `_` (Docker service names) separated by single dots.
    static func isHostName(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.utf8.allSatisfy { byte in
                isDigit(byte) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
    }

    /// A character allowed in a URL path as written here: visible ASCII
    /// except those RFC 3986 never allows unencoded.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return !"\"<>\\^`{|}".utf8.contains(byte)
    }

    /// Levenshtein distance, for "did you mean" hints on short names.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The closest candidate within a few edits, or nil.
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let limit = max(2, name.count / 4)
        let ranked = candidates.map { ($0, distance(name.lowercased(), $0.lowercased())) }
            .filter { $0.1 <= limit }
            .min { $0.1 < $1.1 }
        return ranked?.0
    }
}
