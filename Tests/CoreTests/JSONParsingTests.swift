import Core
import Testing

/// Documents that must be read, and what they read as. Written for this
/// project after the categories of the JSONTestSuite (y_ cases).
@Suite("JSON parsing: accepted documents")
struct JSONAcceptedTests {
    @Test("structure", arguments: [
        ("[]", []),
        ("{}", [:]),
        (" \t\n\r[ 1 ,\t2 ]\r\n ", [1, 2]),
        ("[[[]]]", [[[]]]),
        (#"{"a":{"b":[null,true,false]}}"#, ["a": ["b": [.null, true, false]]]),
        (#"[1,"a",{"b":null},[]]"#, [1, "a", ["b": .null], []]),
        (#"{"":0}"#, ["": 0]),
        (#"{"a":1,"A":2}"#, ["a": 1, "A": 2]),
        (#"{ "k" : "v" , "l" : [ ] }"#, ["k": "v", "l": []]),
        ("null", .null),
        ("true", true),
        ("false", false),
        (#""top-level string""#, "top-level string"),
        ("42", 42),
    ] as [(String, JSON)])
    func structure(text: String, expected: JSON) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test("numbers: integers stay exact, everything else is a double", arguments: [
        ("0", .int(0)),
        ("-0", .int(0)),
        ("1", .int(1)),
        ("-1", .int(-1)),
        ("123456789", .int(123_456_789)),
        ("9007199254740993", .int(9_007_199_254_740_993)),
        ("9223372036854775807", .int(.max)),
        ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_808)),
        ("100000000000000000000", .double(1e20)),
        ("1.5", .double(1.5)),
        ("1.0", .double(1)),
        ("-0.25", .double(-0.25)),
        ("1e2", .double(100)),
        ("1E2", .double(100)),
        ("1e+2", .double(100)),
        ("1e-2", .double(0.01)),
        ("0.5e1", .double(5)),
        ("0e0", .double(0)),
        ("1e-400", .double(0)),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("5e-324", .double(.leastNonzeroMagnitude)),
        ("[-12,3.25e1]", [.int(-12), .double(32.5)]),
    ] as [(String, JSON)])
    func numbers(text: String, expected: JSON) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test("negative zero as a double keeps its sign")
    func negativeZero() throws {
        let value = try JSON.parse("-0.0")
        #expect(value.doubleValue?.sign == .minus)
        #expect(value.serializedString == "-0.0")
    }

    @Test("strings and escapes", arguments: [
        (#""""#, ""),
        (#""a\"b""#, "a\"b"),
        (#""\\\/\b\f\n\r\t""#, "\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\u20AC""#, "€"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""\u0000""#, "\u{0}"),
        (#""\uFFFF""#, "\u{FFFF}"),
        (#""é€😀""#, "é€😀"),
        (#""a/b""#, "a/b"),
        ("\"\u{7F}\"", "\u{7F}"),
        (#""x\n😀é""#, "x\n😀é"),
        (#""\"\"""#, "\"\""),
    ] as [(String, String)])
    func strings(text: String, expected: String) throws {
        #expect(try JSON.parse(text) == .string(expected))
    }

    @Test("any collection of bytes, contiguous or not")
    func collections() throws {
        let text = #"{"a":[1,2.5,"é"],"b":null}"#
        let expected = try JSON.parse(text)
        #expect(try JSON.parse(Array(text.utf8)) == expected)
        #expect(try JSON.parse(Array(text.utf8).lazy.map { $0 }) == expected)
        #expect(try JSON.parse(("xx" + text).utf8.dropFirst(2)) == expected)
        let padded = Array("[[".utf8) + Array(text.utf8)
        #expect(try JSON.parse(padded[2...]) == expected)
        #expect(try JSON.parse(text[...].utf8) == expected)
    }

    @Test("object keys keep the document's order")
    func keyOrder() throws {
        let value = try JSON.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.map(\.0) == ["z", "a", "m"])
    }
}
