import Core
import Testing

@Suite("JSON limits and errors")
struct JSONLimitsTests {
    func nested(_ depth: Int, open: String = "[", close: String = "]") -> String {
        String(repeating: open, count: depth) + String(repeating: close, count: depth)
    }

    func refusal(_ text: String, limits: JSONLimits = JSONLimits()) -> JSONError? {
        JSONRefusalTests.refusal(text.utf8, limits: limits)
    }

    @Test("nesting: 64 levels by default, refused at the 65th")
    func defaultDepth() throws {
        #expect(try JSON.parse(nested(64)).arrayValue != nil)
        #expect(refusal(nested(65)) == JSONError(.tooDeep, at: 64))
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(refusal(objects) == JSONError(.tooDeep, at: 5 * 64))
        let mixed = String(repeating: #"[{"a":"#, count: 32) + "1" + String(repeating: "}]", count: 32)
        #expect(try JSON.parse(mixed).arrayValue?.count == 1)
    }

    @Test("nesting: chosen limits, and a ceiling of 512")
    func chosenDepth() throws {
        #expect(try JSON.parse("1", limits: JSONLimits(maxDepth: 0)) == 1)
        #expect(refusal("[]", limits: JSONLimits(maxDepth: 0)) == JSONError(.tooDeep, at: 0))
        #expect(refusal("[[1]]", limits: JSONLimits(maxDepth: 1)) == JSONError(.tooDeep, at: 1))
        let huge = JSONLimits(maxDepth: 100_000)
        #expect(try JSON.parse(nested(512), limits: huge).arrayValue != nil)
        #expect(refusal(nested(513), limits: huge) == JSONError(.tooDeep, at: 512))
        #expect(refusal(nested(100_000), limits: huge)?.reason == .tooDeep)
    }

    @Test("document size")
    func documentSize() throws {
        #expect(try JSON.parse("[1]", limits: JSONLimits(maxBytes: 3)) == [1])
        #expect(refusal("[1]", limits: JSONLimits(maxBytes: 2)) == JSONError(.documentTooLarge, at: 2))
        let big = "[" + String(repeating: "0,", count: 600_000) + "0]"
        #expect(refusal(big)?.reason == .documentTooLarge)
    }

    @Test("string size counts UTF-8 bytes after unescaping, keys included")
    func stringSize() throws {
        let three = JSONLimits(maxStringBytes: 3)
        #expect(try JSON.parse(#"["abc"]"#, limits: three) == ["abc"])
        #expect(try JSON.parse(#""a\nb""#, limits: three) == "a\nb")
        #expect(try JSON.parse(#""\u00e9a""#, limits: three) == "éa")
        #expect(refusal(#"["abcd"]"#, limits: three) == JSONError(.stringTooLong, at: 1))
        #expect(refusal(#""ab\nc""#, limits: three) == JSONError(.stringTooLong, at: 0))
        #expect(refusal(#""ééa""#, limits: three) == JSONError(.stringTooLong, at: 0))
        #expect(refusal(#"{"abcd":1}"#, limits: three) == JSONError(.stringTooLong, at: 1))
        #expect(refusal("\"" + String(repeating: "x", count: 65_537) + "\"")?.reason == .stringTooLong)
        #expect(try JSON.parse("\"" + String(repeating: "x", count: 65_536) + "\"").stringValue?.utf8.count == 65_536)
    }

    @Test("an error names a reason and an offset, never the input", arguments: [
        #"{"password":"hunter2","password":"hunter2"}"#,
        #"{"token":"hunter2" "x":1}"#,
        #"["hunter2",]"#,
        #"{"hunter2":1,}"#,
        #""hunter2\q""#,
        #""hunter2\uD800""#,
        "\"hunter2\n\"",
        #"hunter2"#,
        #"{"a":"hunter2"} hunter2"#,
        #"{"hunter2"}"#,
        #"[1e999, "hunter2"]"#,
        #"["hunter2""#,
    ])
    func errorsDoNotQuote(text: String) {
        guard let error = refusal(text) else {
            Issue.record("accepted")
            return
        }
        var dumped = ""
        dump(error, to: &dumped)
        for rendering in ["\(error)", String(reflecting: error), dumped, error.reason.rawValue] {
            #expect(!rendering.contains("hunter2"), "\(rendering)")
            #expect(!rendering.contains("hunt"), "\(rendering)")
        }
        #expect("\(error)" == "\(error.reason.rawValue) at byte \(error.offset)")
    }

    @Test("reasons are short fixed sentences")
    func reasons() {
        for reason in JSONError.Reason.allCases {
            #expect(!reason.rawValue.isEmpty && reason.rawValue.count <= 60)
        }
        #expect(Set(JSONError.Reason.allCases.map(\.rawValue)).count == JSONError.Reason.allCases.count)
    }

    @Test("printing a value shows its shape, not its content")
    func printingRedacts() {
        let value: JSON = ["access_token": "hunter2", "claims": ["sub": "hunter2"], "n": 3]
        var dumped = ""
        dump(value, to: &dumped)
        for rendering in ["\(value)", String(reflecting: value), dumped, "\(value["claims"]!)", "\(value["access_token"]!)"] {
            #expect(!rendering.contains("hunter2"), "\(rendering)")
        }
        #expect(value.description == "JSON object (3 keys)")
        #expect(JSON.string("hunter2").description == "JSON string (7 bytes)")
        #expect(JSON.array([1]).description == "JSON array (1 element)")
    }
}
