import HTTP
import Testing
@testable import Gateway

/// The upstream's `Content-Length` as the proxy reads it on the way by: a
/// plain decimal, or nothing (the answer then streams).
@Suite struct ProxyLengthTests {
    @Test(arguments: [("0", 0), ("5", 5), ("007", 7), ("123456789012345678", 123_456_789_012_345_678)])
    func aPlainDecimalIsTheLength(value: String, expected: Int) {
        #expect(value.withContiguousUTF8(HTTPHeaders.decimal) == expected)
    }

    @Test(arguments: ["", "5, 5", "+5", "-1", " 5", "5a", "1234567890123456789"])
    func anythingElseIsNoLength(value: String) {
        #expect(value.withContiguousUTF8(HTTPHeaders.decimal) == nil)
    }
}
