import HTTP
import Testing

/// Small pieces the parsers and the upstream client share: the field-value
/// byte check, and a request head's path and query.
@Suite struct HTTPPrimitivesTests {
    private func isFieldValue(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { FieldGrammar.isFieldValue($0) }
    }

    @Test func fieldValuesTakeVisibleBytesSpaceTabAndObsTextOnly() {
        // 21 bytes: two eight-byte words and a tail, so each refused byte is
        // tried at the start, middle and end of a word and in the tail.
        let good = Array("Bearer abc.DEF-123_~+".utf8)
        #expect(isFieldValue(good))
        #expect(isFieldValue([]))
        #expect(isFieldValue(Array(repeating: 0x09, count: 17)))  // tabs only
        #expect(isFieldValue(Array(0x20...0x7E) + Array(0x80...0xFF)))
        for refused: UInt8 in [0x00, 0x0A, 0x0D, 0x1F, 0x7F] {
            for position in [0, 3, 7, 8, 15, 16, 20] {
                var bytes = good
                bytes[position] = refused
                #expect(!isFieldValue(bytes), "byte \(refused) at \(position)")
            }
        }
    }

    /// Every length from 0 to 24 (shorter than a word, whole words, words
    /// and a tail) with each refused byte, and a tab, at every position:
    /// the word-at-a-time check agrees with one byte at a time.
    @Test func theFieldValueCheckAgreesWithAByteByByteOneAtEveryLengthAndPosition() {
        func reference(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) } }
        for length in 0...24 {
            let base = (0..<length).map { UInt8(0x41 + $0 % 26) }
            #expect(isFieldValue(base) && reference(base))
            for position in 0..<length {
                for byte: UInt8 in [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xFF] {
                    var bytes = base
                    bytes[position] = byte
                    #expect(isFieldValue(bytes) == reference(bytes), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func pathAndQuerySplitAtTheFirstQuestionMarkAndFollowTheTarget() {
        var head = HTTPRequestHead(method: .get, target: "/a/b?x=1&y=?")
        #expect(head.path == "/a/b")
        #expect(head.query == "x=1&y=?")
        head.target = "/c"
        #expect(head.path == "/c")
        #expect(head.query == nil)
        head.target = "/ä/é?q=ü"
        #expect(head.path == "/ä/é")
        #expect(head.query == "q=ü")
        head.target = "/d?"
        #expect(head.path == "/d")
        #expect(head.query == "")
        #expect(HTTPRequestHead(method: .get, target: "?only").path == "")
    }
}
