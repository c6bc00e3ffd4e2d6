import Core
import Testing

/// Documents that must be refused, with the reason and the byte offset.
/// Written for this project after the JSONTestSuite's n_ categories.
@Suite("JSON parsing: refused documents")
struct JSONRefusalTests {
    static func refusal(_ bytes: some Collection<UInt8>, limits: JSONLimits = JSONLimits()) -> JSONError? {
        do {
            _ = try JSON.parse(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("structure", arguments: [
        ("", .unexpectedEnd, 0),
        (" ", .unexpectedEnd, 1),
        ("[", .unexpectedEnd, 1),
        (#"{"a":"#, .unexpectedEnd, 5),
        (#"{"a""#, .unexpectedEnd, 4),
        ("[1", .unexpectedEnd, 2),
        ("[1,]", .trailingComma, 3),
        (#"{"a":1,}"#, .trailingComma, 7),
        ("[1 2]", .expectedCommaOrBracket, 3),
        (#"{"a" 1}"#, .expectedColon, 5),
        (#"{"a":1 "b":2}"#, .expectedCommaOrBrace, 7),
        ("{a:1}", .expectedKey, 1),
        ("{'a':1}", .expectedKey, 1),
        ("{,}", .expectedKey, 1),
        (#"{"a":1,,}"#, .expectedKey, 7),
        ("{1:1}", .expectedKey, 1),
        ("['a']", .expectedValue, 1),
        ("[,1]", .expectedValue, 1),
        ("[1,,2]", .expectedValue, 3),
        ("]", .expectedValue, 0),
        ("[1]]", .trailingCharacters, 3),
        ("[1] x", .trailingCharacters, 4),
        ("1 2", .trailingCharacters, 2),
        ("{}{}", .trailingCharacters, 2),
        ("/* c */ 1", .expectedValue, 0),
        ("[1] // c", .trailingCharacters, 4),
        ("# c\n1", .expectedValue, 0),
        ("NaN", .expectedValue, 0),
        ("Infinity", .expectedValue, 0),
        ("-Infinity", .invalidNumber, 0),
        ("True", .expectedValue, 0),
        ("nul", .unexpectedEnd, 3),
        ("tru e", .invalidLiteral, 0),
        ("nulll", .trailingCharacters, 4),
        ("[undefined]", .expectedValue, 1),
    ] as [(String, JSONError.Reason, Int)])
    func structure(text: String, reason: JSONError.Reason, offset: Int) {
        #expect(Self.refusal(text.utf8) == JSONError(reason, at: offset))
    }

    @Test("numbers", arguments: [
        ("01", .invalidNumber, 0),
        ("00", .invalidNumber, 0),
        ("-01", .invalidNumber, 0),
        ("+1", .expectedValue, 0),
        (".5", .expectedValue, 0),
        ("1.", .invalidNumber, 0),
        ("1.e1", .invalidNumber, 0),
        ("1e", .invalidNumber, 0),
        ("1e+", .invalidNumber, 0),
        ("1E-", .invalidNumber, 0),
        ("-", .invalidNumber, 0),
        ("- 1", .invalidNumber, 0),
        ("[-]", .invalidNumber, 1),
        ("0x10", .trailingCharacters, 1),
        ("1_000", .trailingCharacters, 1),
        ("1,000", .trailingCharacters, 1),
        ("1e400", .numberOutOfRange, 0),
        ("-1e400", .numberOutOfRange, 0),
        ("[1.5e999]", .numberOutOfRange, 1),
        (String(repeating: "9", count: 400), .numberOutOfRange, 0),
    ] as [(String, JSONError.Reason, Int)])
    func numbers(text: String, reason: JSONError.Reason, offset: Int) {
        #expect(Self.refusal(text.utf8) == JSONError(reason, at: offset))
    }

    @Test("strings, escapes and surrogates", arguments: [
        (#""abc"#, .unexpectedEnd, 4),
        (#""\"#, .unexpectedEnd, 2),
        (#""\x""#, .invalidEscape, 1),
        (#""\U0041""#, .invalidEscape, 1),
        (#""\'""#, .invalidEscape, 1),
        (#""\a""#, .invalidEscape, 1),
        (#""\u12""#, .invalidEscape, 1),
        (#""\u12"#, .unexpectedEnd, 5),
        (#""\uZZZZ""#, .invalidEscape, 1),
        (#""\u-123""#, .invalidEscape, 1),
        ("\"a\tb\"", .controlCharacter, 2),
        ("\"a\nb\"", .controlCharacter, 2),
        ("\"\u{0}\"", .controlCharacter, 1),
        ("\"\\n\u{1F}\"", .controlCharacter, 3),
        (#""\uD800""#, .loneSurrogate, 1),
        (#""\uDBFF""#, .loneSurrogate, 1),
        (#""\uDC00""#, .loneSurrogate, 1),
        (#""\uDFFF\uD800""#, .loneSurrogate, 1),
        (#""\uDE00\uD83D""#, .loneSurrogate, 1),
        (#""\uD800\u0041""#, .loneSurrogate, 1),
        (#""\uD800\uD800""#, .loneSurrogate, 1),
        (#""\uD800x""#, .loneSurrogate, 1),
        (#""\uD800\n""#, .loneSurrogate, 1),
        (#""ok\uD83D""#, .loneSurrogate, 3),
        (#""\uD83D\uZZZZ""#, .invalidEscape, 7),
    ] as [(String, JSONError.Reason, Int)])
    func strings(text: String, reason: JSONError.Reason, offset: Int) {
        #expect(Self.refusal(text.utf8) == JSONError(reason, at: offset))
    }

    @Test("UTF-8 is validated; only SP, HT, LF, CR are white space", arguments: [
        ([0x22, 0xC0, 0x80, 0x22], .invalidUTF8, 1),                   // overlong NUL
        ([0x22, 0xC1, 0xBF, 0x22], .invalidUTF8, 1),                   // overlong
        ([0x22, 0xE0, 0x80, 0x80, 0x22], .invalidUTF8, 1),             // overlong 3-byte
        ([0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, 1),       // overlong 4-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, 1),             // encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, 1),       // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, 1),
        ([0x22, 0x80, 0x22], .invalidUTF8, 1),                         // lone continuation
        ([0x22, 0xE2, 0x82, 0x22], .invalidUTF8, 1),                   // truncated €
        ([0x22, 0xFF, 0x22], .invalidUTF8, 1),
        ([0x22, 0xC3], .invalidUTF8, 1),                               // cut at the end
        ([0x22, 0x5C, 0x6E, 0xC0, 0x80, 0x22], .invalidUTF8, 3),       // after an escape
        ([0x22, 0x61, 0xE2, 0x82, 0xAC, 0xE2, 0x82, 0x22], .invalidUTF8, 5),
        ([0xEF, 0xBB, 0xBF, 0x5B, 0x5D], .expectedValue, 0),           // byte order mark
        ([0x5B, 0xC3, 0xA9, 0x5D], .expectedValue, 1),                 // é outside a string
        ([0x0C, 0x31], .expectedValue, 0),                             // form feed
        ([0x0B, 0x31], .expectedValue, 0),                             // vertical tab
        ([0xC2, 0xA0, 0x31], .expectedValue, 0),                       // no-break space
        ([0x31, 0x0C], .trailingCharacters, 1),
        ([0x5B, 0x31, 0x00, 0x5D], .expectedCommaOrBracket, 2),
    ] as [([UInt8], JSONError.Reason, Int)])
    func bytes(bytes: [UInt8], reason: JSONError.Reason, offset: Int) {
        #expect(Self.refusal(bytes) == JSONError(reason, at: offset))
    }

    @Test("every valid UTF-8 sequence length is accepted in both string paths")
    func validUTF8() throws {
        for text in ["\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "\u{10000}", "\u{10FFFF}"] {
            #expect(try JSON.parse("\"\(text)\"") == .string(text))
            #expect(try JSON.parse("\"\\t\(text)\"") == .string("\t" + text))
        }
    }

    @Test("duplicate keys are refused, at the repeated key")
    func duplicateKeys() throws {
        #expect(Self.refusal(#"{"a":1,"a":2}"#.utf8) == JSONError(.duplicateKey, at: 7))
        #expect(Self.refusal(#"{"a":1,"\u0061":2}"#.utf8) == JSONError(.duplicateKey, at: 7))
        #expect(Self.refusal(#"{"é":1,"e\u0301":2}"#.utf8)?.reason == .duplicateKey)
        #expect(Self.refusal(#"[{"x":{"a":1,"b":2,"a":3}}]"#.utf8)?.reason == .duplicateKey)
        #expect(try JSON.parse(#"{"a":1,"b":{"a":2},"c":[{"a":3}]}"#)["c"]?[0]?["a"] == 3)
        #expect(try JSON.parse(#"{"a":1,"A":2}"#)["A"] == 2)
    }

    @Test("duplicates are found in large objects too", arguments: [1, 2, 15, 16, 17, 40])
    func duplicateInLargeObject(distinctKeys: Int) throws {
        let members = (0..<distinctKeys).map { "\"k\($0)\":\($0)" }
        let unique = "{" + members.joined(separator: ",") + "}"
        #expect(try JSON.parse(unique).objectValue?.count == distinctKeys)
        for repeated in [0, distinctKeys - 1] {
            let text = "{" + (members + ["\"k\(repeated)\":0"]).joined(separator: ",") + "}"
            #expect(Self.refusal(text.utf8)?.reason == .duplicateKey, "\(distinctKeys) keys, k\(repeated) again")
        }
    }
}
