import HTTPCodec
import Testing

/// The field grammar every reader shares: token names, trimmed values, no
/// obs-fold, no whitespace before the colon.
struct FieldGrammarTests {
    @Test(arguments: [
        ("Host: a", "Host", "a"),
        ("X-A:b", "X-A", "b"),
        ("X-A: \t two words \t", "X-A", "two words"),
        ("X-Empty:", "X-Empty", ""),
        ("X-Empty:   ", "X-Empty", ""),
        ("!#$%&'*+-.^_`|~09azAZ: v", "!#$%&'*+-.^_`|~09azAZ", "v"),
        ("X: a:b, \"c\"", "X", "a:b, \"c\""),
    ])
    func goodFieldLinesSplitIntoNameAndTrimmedValue(line: String, name: String, value: String) throws {
        let (gotName, gotValue) = try withInput(line) { (input) throws(HTTPParseError) in
            let (n, v) = try FieldGrammar.splitField(input, 0..<input.count)
            return (input.string(n), input.string(v))
        }
        #expect(gotName == name)
        #expect(gotValue == value)
    }

    @Test(arguments: [
        (" X: a", "obs-fold or leading whitespace"),
        ("\tX: a", "obs-fold or leading whitespace"),
        ("X : a", "whitespace before colon"),
        ("X\t: a", "whitespace before colon"),
        ("X(: a", "invalid field name"),
        ("X/Y: a", "invalid field name"),
        (": a", "empty field name"),
        ("X-No-Colon", "field without colon"),
        ("", "field without colon"),
    ])
    func badFieldLinesAreRefused(line: String, reason: String) {
        #expect(throws: HTTPParseError(.badRequest, reason)) {
            try withInput(line) { (input) throws(HTTPParseError) in _ = try FieldGrammar.splitField(input, 0..<input.count) }
        }
    }

    @Test(arguments: [
        ("X: a\u{1}b", false), ("X: a\u{7F}", false), ("X: a\rb", false), ("X: a\nb", false),
        ("X: a\u{0}", false), ("X: \ta\tb", true), ("X: caf\u{E9}", true), ("X: " + String(repeating: "v", count: 40), true),
    ])
    func checkedFieldsRefuseControlsButHTAB(line: String, accepted: Bool) {
        let bytes = Array(line.utf8)
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HTTPParseError) in try FieldGrammar.splitCheckedField(raw) }
        }
        #expect(((try? result.get()) != nil) == accepted)
    }

    @Test func tokenBytesAreExactlyTheTChars() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(FieldGrammar.isTokenByte(byte) == tchars.contains(byte), "byte \(byte)")
        }
    }

    @Test(arguments: [
        ("0", 0), ("5", 5), ("007", 7), ("9223372036854775807", Int.max),
        ("", nil), ("+3", nil), ("-1", nil), ("5 5", nil), ("0x5", nil), ("5, 5", nil), ("9223372036854775808", nil),
    ] as [(String, Int?)])
    func contentLengthIsDigitsThatFit(value: String, length: Int?) throws {
        let got = try withInput(value) { input in FieldGrammar.contentLength(input, 0..<input.count) }
        #expect(got == length)
    }
}
