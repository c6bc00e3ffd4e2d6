extension JSONParser {
    /// A string starting at the `"` under `index`. Strings without escapes
    /// are copied straight from the input; escapes go through `scratch`.
    mutating func parseString() throws(JSONError) -> String {
        let quote = index
        let start = index + 1
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                guard position - start <= maxStringBytes else { throw JSONError(.stringTooLong, at: quote) }
                index = position + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw JSONError(.controlCharacter, at: position) }
            position = byte < 0x80 ? position + 1 : try validateUTF8(at: position)
        }
        guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        return try parseEscapedRest(quote: quote, from: position)
    }

    /// The rest of a string from its first backslash on.
    private mutating func parseEscapedRest(quote: Int, from first: Int) throws(JSONError) -> String {
        var position = first
        while true {
            guard position < bytes.count else { throw JSONError(.unexpectedEnd, at: position) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                guard scratch.count <= maxStringBytes else { throw JSONError(.stringTooLong, at: quote) }
                index = position + 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position = try unescape(at: position)
            case 0..<0x20:
                throw JSONError(.controlCharacter, at: position)
            case 0x80...:
                let end = try validateUTF8(at: position)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<end]))
                position = end
            default:
                scratch.append(byte)
                position += 1
            }
        }
    }

    /// Appends the character of the escape at `position` (a backslash) to
    /// `scratch`; returns the index after the escape.
    private mutating func unescape(at position: Int) throws(JSONError) -> Int {
        guard position + 1 < bytes.count else { throw JSONError(.unexpectedEnd, at: position + 1) }
        let simple: UInt8
        switch bytes[position + 1] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): return try unescapeUnicode(at: position)
        default: throw JSONError(.invalidEscape, at: position)
        }
        scratch.append(simple)
        return position + 2
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`; a lone surrogate is
    /// refused rather than replaced.
    private mutating func unescapeUnicode(at position: Int) throws(JSONError) -> Int {
        let unit = try hexQuad(at: position + 2)
        var scalar = UInt32(unit)
        var end = position + 6
        switch unit {
        case 0xD800...0xDBFF:
            guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"), bytes[end + 1] == UInt8(ascii: "u") else {
                throw JSONError(.loneSurrogate, at: position)
            }
            let low = try hexQuad(at: end + 2)
            guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.loneSurrogate, at: position) }
            scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw JSONError(.loneSurrogate, at: position)
        default:
            break
        }
        appendUTF8(scalar)
        return end
    }

    /// Four hex digits starting at `position`.
    private func hexQuad(at position: Int) throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 {
            guard position + offset < bytes.count else { throw JSONError(.unexpectedEnd, at: position + offset) }
            let byte = bytes[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidEscape, at: position - 2)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Checks the multi-byte UTF-8 sequence whose lead byte (≥ 0x80) is at
    /// `position` (Unicode 15, table 3-7: no overlong forms, no surrogates,
    /// nothing above U+10FFFF); returns the index after it.
    private func validateUTF8(at position: Int) throws(JSONError) -> Int {
        let lead = bytes[position]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw JSONError(.invalidUTF8, at: position)
        }
        guard position + length <= bytes.count else { throw JSONError(.invalidUTF8, at: position) }
        guard secondRange.contains(bytes[position + 1]) else { throw JSONError(.invalidUTF8, at: position) }
        for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
            throw JSONError(.invalidUTF8, at: position)
        }
        return position + length
    }
}
