import Core
import Testing

// Test output shows the document; the type itself prints only its shape.
extension JSON: CustomTestStringConvertible {
    public var testDescription: String { serializedString }
}

@Suite("JSON access")
struct JSONAccessTests {
    let answer: JSON = [
        "AccessToken": "at", "ExpiresIn": 3600, "Scope": ["openid", "profile"], "Refresh": .null,
        "Claims": ["sub": "u1", "Admin": false], "Ratio": 0.5,
    ]

    @Test("exact keys, indices and typed values")
    func lookups() {
        #expect(answer["AccessToken"]?.stringValue == "at")
        #expect(answer["accessToken"] == nil)
        #expect(answer["ExpiresIn"]?.intValue == 3600)
        #expect(answer["Scope"]?[1]?.stringValue == "profile")
        #expect(answer["Scope"]?[2] == nil)
        #expect(answer["Scope"]?[-1] == nil)
        #expect(answer["Refresh"]?.isNull == true)
        #expect(answer["Missing"]?.isNull == nil)
        #expect(answer["Claims"]?["Admin"]?.boolValue == false)
        #expect(answer["Ratio"]?.doubleValue == 0.5)
        #expect(answer[0] == nil)
        #expect(JSON.string("x")["a"] == nil)
        #expect(answer.objectValue?.map(\.0) == ["AccessToken", "ExpiresIn", "Scope", "Refresh", "Claims", "Ratio"])
        #expect(answer["Scope"]?.arrayValue == ["openid", "profile"])
        #expect(answer["Scope"]?.objectValue == nil)
    }

    @Test("keys ignoring ASCII case, for PascalCase and camelCase answers")
    func caseInsensitive() throws {
        #expect(answer.value(forKeyIgnoringCase: "accessToken")?.stringValue == "at")
        #expect(answer.value(forKeyIgnoringCase: "EXPIRESIN")?.intValue == 3600)
        #expect(answer.value(forKeyIgnoringCase: "expires_in") == nil)
        #expect(answer["Claims"]?.value(forKeyIgnoringCase: "admin")?.boolValue == false)
        let camel = try JSON.parse(#"{"accessToken":"c"}"#)
        #expect(camel.value(forKeyIgnoringCase: "AccessToken")?.stringValue == "c")
        #expect(JSON.array([]).value(forKeyIgnoringCase: "a") == nil)
    }

    @Test("ignoring case: ambiguous keys give nil; only ASCII letters fold")
    func caseInsensitiveEdges() throws {
        let twice = try JSON.parse(#"{"userId":"a","UserId":"b"}"#)
        #expect(twice["userId"]?.stringValue == "a")
        #expect(twice.value(forKeyIgnoringCase: "userid") == nil)
        #expect(twice.value(forKeyIgnoringCase: "userId") == nil)
        let symbols = try JSON.parse(#"{"a@":1,"b[":2,"É":3}"#)
        #expect(symbols.value(forKeyIgnoringCase: "A@")?.intValue == 1)
        #expect(symbols.value(forKeyIgnoringCase: "a`") == nil)
        #expect(symbols.value(forKeyIgnoringCase: "b{") == nil)
        #expect(symbols.value(forKeyIgnoringCase: "é") == nil)
        #expect(symbols.value(forKeyIgnoringCase: "É")?.intValue == 3)
    }

    @Test("intValue only for exact integers", arguments: [
        (.int(7), 7), (.int(.min), Int(Int64.min)), (.double(3), 3), (.double(-0.0), 0), (.double(1e3), 1000),
        (.double(3.5), nil), (.double(1e19), nil), (.double(.nan), nil), (.double(.infinity), nil),
        (true, nil), ("3", nil), (.null, nil), ([3], nil),
    ] as [(JSON, Int?)])
    func intValue(value: JSON, expected: Int?) {
        #expect(value.intValue == expected)
    }

    @Test("booleans are not numbers, nor numbers booleans")
    func booleansAndNumbers() throws {
        let value = try JSON.parse(#"[true,1,0,"true"]"#)
        #expect(value[0]?.boolValue == true && value[0]?.intValue == nil && value[0]?.doubleValue == nil)
        #expect(value[1]?.boolValue == nil && value[1]?.intValue == 1)
        #expect(value[2]?.boolValue == nil)
        #expect(value[3]?.boolValue == nil && value[3]?.stringValue == "true")
    }

    @Test("equality is structural")
    func equality() {
        #expect(JSON.int(1) != JSON.double(1))
        #expect(JSON.object(["a": 1, "b": 2]) != JSON.object(["b": 2, "a": 1]))
        #expect(JSON.object(["a": [1, "x"]]) == ["a": [1, "x"]])
        #expect(JSON.array([]) != JSON.object([:]))
    }

    @Test("objects: assignment replaces in place, appends, removes")
    func objectEditing() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = "one"
        object["c"] = 3
        #expect(object.keys == ["a", "b", "c"])
        object["b"] = nil
        object["zz"] = nil
        #expect(JSON.object(object).serializedString == #"{"a":"one","c":3}"#)
        #expect(object.count == 2 && !object.isEmpty)
        #expect(object.map(\.key) == ["a", "c"])
        #expect(JSONObject().isEmpty)
    }
}
