import HTTP
import Testing

/// The byte-backed header list: the `String` view and the byte accessors
/// agree, and every change keeps the fields' order and bytes.
@Suite struct HTTPHeadersTests {
    private func bytes(_ headers: HTTPHeaders, _ index: Int) -> (name: [UInt8], value: [UInt8]) {
        headers.withField(at: index) { (Array($0), Array($1)) }
    }

    @Test func addedFieldsReadBackInOrderAsStringsAndBytes() {
        var headers = HTTPHeaders(capacity: 1, byteCapacity: 4)  // grows past both
        headers.add("Content-Type", "application/json")
        headers.add("Set-Cookie", "a=1")
        headers.add("set-cookie", "b=2")
        headers.add("Authorization", "Bearer ", "tok")
        #expect(headers.count == 4)
        #expect(headers.fields == [
            HTTPField(name: "Content-Type", value: "application/json"), HTTPField(name: "Set-Cookie", value: "a=1"),
            HTTPField(name: "set-cookie", value: "b=2"), HTTPField(name: "Authorization", value: "Bearer tok"),
        ])
        #expect(headers["content-type"] == "application/json")
        #expect(headers.values("SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Missing"] == nil && !headers.contains("Missing"))
        #expect(headers.firstIndex(named: "SET-cookie") == 1)
        #expect(headers.nameEquals(at: 3, lowercase: "authorization"))
        #expect(!headers.nameEquals(at: 3, lowercase: "authorizatio"))
        #expect(bytes(headers, 3).value == Array("Bearer tok".utf8))
        #expect(headers.lineSize(at: 0) == "Content-Type: application/json\r\n".utf8.count)
        #expect(headers.byteCount == headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
    }

    @Test func lowercaseComparisonsFoldLettersOnly() {
        let headers: HTTPHeaders = ["X-CSRF": "1", "Connection": "Keep-Alive", "x\u{0D}srf": "1"]
        #expect(headers.nameEquals(at: 0, lowercase: "x-csrf"))
        #expect(headers.valueEquals(at: 0, "1") && !headers.valueEquals(at: 1, "1"))
        #expect(headers.valueEquals(at: 1, lowercase: "keep-alive"))
        // CR (0x0D) | 0x20 is "-" (0x2D): folding must not make them equal.
        #expect(!headers.nameEquals(at: 2, lowercase: "x-srf"))
    }

    @Test func removingKeepsTheOtherFieldsAndTheirBytes() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3", "C": "4"]
        headers.remove("a")
        #expect(headers.fields.map(\.value) == ["2", "4"])
        #expect(bytes(headers, 1).name == Array("C".utf8))
        headers.set("B", "5")
        #expect(headers.fields == [HTTPField(name: "C", value: "4"), HTTPField(name: "B", value: "5")])
        headers.removeAll { $0.value == "4" }
        #expect(headers.fields == [HTTPField(name: "B", value: "5")])
    }

    @Test func equalityIsFieldByFieldWhateverTheStorageHolds() {
        var grown: HTTPHeaders = ["Gone": "x", "A": "1"]
        grown.remove("Gone")  // its bytes stay in the storage
        #expect(grown == ["A": "1"])
        #expect(grown != ["a": "1"])
        #expect(grown != ["A": "1", "B": "2"])
        var copied = HTTPHeaders()
        copied.add(fieldAt: 0, of: grown)
        #expect(copied == grown)
    }

    @Test func growingPastTheTableAndTheBytesKeepsEveryField() {
        var headers = HTTPHeaders()
        let long = String(repeating: "v", count: 5000)
        for index in 0..<40 { headers.add("Field-\(index)", index == 20 ? long : "value \(index)") }
        #expect(headers.count == 40)
        for index in 0..<40 {
            #expect(headers.field(at: index) == HTTPField(name: "Field-\(index)", value: index == 20 ? long : "value \(index)"))
        }
        var copy = HTTPHeaders()
        for index in 0..<headers.count { copy.add(fieldAt: index, of: headers) }
        #expect(copy == headers)
    }

    /// A field added as checked keeps the mark through copies, removals
    /// of others and growth, and the mark changes neither its bytes nor
    /// its lengths; every other way of adding a field leaves it unmarked.
    @Test func theCheckedMarkFollowsAFieldAndNothingElse() {
        var headers = HTTPHeaders(capacity: 1, byteCapacity: 4)  // grows past both
        "Accept".withContiguousUTF8 { name in "*/*".withContiguousUTF8 { headers.add(checkedName: name, value: $0) } }
        headers.add("X-Plain", "1")
        headers.add("Authorization", "Bearer ", "tok", checked: true)
        headers.add("X-Forwarded-For", "", "::1")
        #expect((0..<4).map(headers.isChecked) == [true, false, true, false])
        #expect(headers.fields == [
            HTTPField(name: "Accept", value: "*/*"), HTTPField(name: "X-Plain", value: "1"),
            HTTPField(name: "Authorization", value: "Bearer tok"), HTTPField(name: "X-Forwarded-For", value: "::1"),
        ])
        #expect(headers.lineSize(at: 0) == "Accept: */*\r\n".utf8.count)
        #expect(headers.byteCount == headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
        var copy = HTTPHeaders()
        for index in 0..<headers.count { copy.add(fieldAt: index, of: headers) }
        #expect(copy == headers && (0..<4).map(copy.isChecked) == [true, false, true, false])
        copy.remove("X-Plain")
        for index in 0..<40 { copy.add("Field-\(index)", "value") }
        #expect(copy.isChecked(at: 0) && copy.isChecked(at: 1) && !copy.isChecked(at: 2))
        #expect(copy.field(at: 1) == HTTPField(name: "Authorization", value: "Bearer tok"))
        // Equal bytes are equal fields, marked or not.
        let unmarked: HTTPHeaders = ["Accept": "*/*"]
        #expect(unmarked == headers.keeping(0) && !unmarked.isChecked(at: 0))
    }

    /// Fields removed in place leave the others, their order, bytes and
    /// marks; a copy sharing the buffer keeps every field; new fields
    /// still fit after the removed ones' bytes.
    @Test func fieldsRemovedInPlaceLeaveTheRestAndAnyCopyAlone() {
        var headers: HTTPHeaders = ["Connection": "keep-alive", "A": "1", "Content-Length": "3"]
        "B".withContiguousUTF8 { name in "2".withContiguousUTF8 { headers.add(checkedName: name, value: $0) } }
        let copy = headers
        var seen: [String] = []
        headers.removeFields { name, value in
            seen.append(String(decoding: name, as: UTF8.self) + "=" + String(decoding: value, as: UTF8.self))
            return HTTPHeaders.equals(name, lowercase: "connection") || HTTPHeaders.equals(name, lowercase: "content-length")
        }
        #expect(seen == ["Connection=keep-alive", "A=1", "Content-Length=3", "B=2"])
        #expect(headers.fields == [HTTPField(name: "A", value: "1"), HTTPField(name: "B", value: "2")])
        #expect(!headers.isChecked(at: 0) && headers.isChecked(at: 1))
        #expect(copy.count == 4 && copy.fields.map(\.name) == ["Connection", "A", "Content-Length", "B"])
        headers.add("X-Request-Id", "r-1")
        headers.removeFields { _, _ in false }
        #expect(headers.fields.map(\.value) == ["1", "2", "r-1"])
        headers.removeFields { _, _ in true }
        #expect(headers.count == 0 && headers.fields.isEmpty)
        headers.add("C", "3")
        #expect(headers.fields == [HTTPField(name: "C", value: "3")])
    }

    @Test func copiesAreIndependent() {
        let original: HTTPHeaders = ["A": "1"]
        var copy = original
        copy.add("B", "2")
        #expect(original.count == 1 && copy.count == 2)
    }
}

private extension HTTPHeaders {
    /// Field `index` alone, marked as it was.
    func keeping(_ index: Int) -> HTTPHeaders {
        var kept = HTTPHeaders()
        kept.add(fieldAt: index, of: self)
        return kept
    }
}
