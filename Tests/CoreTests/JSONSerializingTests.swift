import Core
import TestSupport
import Testing

@Suite("JSON serializing")
struct JSONSerializingTests {
    @Test("compact text", arguments: [
        (.null, "null"),
        (true, "true"),
        (false, "false"),
        (0, "0"),
        (-42, "-42"),
        (.int(.max), "9223372036854775807"),
        (.int(.min), "-9223372036854775808"),
        (.double(2), "2.0"),
        (.double(0.1), "0.1"),
        (.double(-0.0), "-0.0"),
        (.double(1e-7), "1e-07"),
        (.double(1e300), "1e+300"),
        (.double(123.456), "123.456"),
        (.double(.leastNonzeroMagnitude), "5e-324"),
        (.double(.nan), "null"),
        (.double(.infinity), "null"),
        (.double(-.infinity), "null"),
        ([], "[]"),
        ([:], "{}"),
        ([1, [2, [3]], [:]], "[1,[2,[3]],{}]"),
        (["b": 1, "a": [true, .null], "c": ["d": "e"]], #"{"b":1,"a":[true,null],"c":{"d":"e"}}"#),
    ] as [(JSON, String)])
    func text(value: JSON, expected: String) {
        #expect(value.serializedString == expected)
        #expect(value.serialized == Array(expected.utf8))
    }

    @Test("string escaping (RFC 8259 §7)", arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("quote \" and backslash \\", #""quote \" and backslash \\""#),
        ("a/b", #""a/b""#),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é€😀\u{2028}", "\"é€😀\u{2028}\""),
        ("\"\"", #""\"\"""#),
    ])
    func escaping(text: String, expected: String) throws {
        #expect(JSON.string(text).serializedString == expected)
        #expect(try JSON.parse(expected) == .string(text))
    }

    @Test("the gateway's way of writing an answer")
    func gatewayUse() {
        let body = JSON.object(["error": "invalid_request", "n": 1, "retry": false]).serialized
        #expect(body == Array(#"{"error":"invalid_request","n":1,"retry":false}"#.utf8))
        var buffer = Array("data: ".utf8)
        JSON.array(["x", 2.5]).serialize(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"data: ["x",2.5]"#)
    }

    @Test("parse then serialize gives back compact documents byte for byte", arguments: [
        "null", "0", "-1", "9223372036854775807", "-9223372036854775808", "1.5", "-0.0", "1e+300", "2.0",
        #""a\"b\\c\n\u0000é""#, "[]", "{}", "[[],{}]", #"{"z":{"y":[1,"2",3.25,true,false,null]},"a":""}"#,
        #"{"DisplayName":"Ada","Roles":["admin"],"ExpiresIn":3600,"Scale":0.001}"#,
    ])
    func canonicalRoundTrip(text: String) throws {
        #expect(try JSON.parse(text).serializedString == text)
    }

    @Test("serialize then parse gives back the same value")
    func valueRoundTrip() throws {
        let values: [JSON] = [
            .double(0.1 + 0.2), .double(1 / 3), .double(-1e-300), .double(.greatestFiniteMagnitude),
            .double(9_007_199_254_740_992), .int(9_007_199_254_740_993),
            "\u{0}\u{1F}\"\\/\u{10FFFF}", ["": ["": []]],
            ["a": 1, "b": [1.25, "x", ["c": .null]], "é": true],
        ]
        for value in values {
            #expect(try JSON.parse(value.serialized) == value, "\(value.serializedString)")
        }
    }

    @Test("generated documents round-trip; mangled ones never crash")
    func generated() throws {
        var random = SplitMix64(seed: 0x6D6F_6467_7564)
        for _ in 0..<300 {
            let value = random.json(depth: 4)
            let bytes = value.serialized
            #expect(try JSON.parse(bytes) == value, "\(value.serializedString)")
            for _ in 0..<4 {
                var mangled = bytes
                let position = Int(random.next() % UInt64(mangled.count))
                mangled[position] = UInt8(truncatingIfNeeded: random.next())
                if let reparsed = try? JSON.parse(mangled) {
                    #expect(try JSON.parse(reparsed.serialized) == reparsed)
                }
            }
        }
    }
}

/// Random JSON values and strings from the seeded generator.
extension SplitMix64 {
    mutating func json(depth: Int) -> JSON {
        let pick = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &self)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &self))
        case 2: return .int(Int64.random(in: .min ... .max, using: &self) >> Int64.random(in: 0..<64, using: &self))
        case 3: return .double(Double.random(in: -1e6...1e6, using: &self) * [1, 1e-200, 1e200][Int.random(in: 0..<3, using: &self)])
        case 4, 5: return .string(string())
        case 6: return .array((0..<Int.random(in: 0..<5, using: &self)).map { _ in json(depth: depth - 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0..<5, using: &self) { object[string()] = json(depth: depth - 1) }
            return .object(object)
        }
    }

    mutating func string() -> String {
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "é", "€", "😀", "\u{FFFF}"]
        var text = ""
        for _ in 0..<Int.random(in: 0..<8, using: &self) {
            text.unicodeScalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &self)])
        }
        return text
    }
}
