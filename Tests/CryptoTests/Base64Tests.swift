import Testing
@testable import Crypto

@Suite("Base64 and Base64URL")
struct Base64Tests {
    // RFC 4648 §10.
    static let rfcVectors = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfcVectors)
    func standardKnownAnswers(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test(arguments: rfcVectors)
    func urlKnownAnswersHaveNoPadding(plain: String, encoded: String) {
        let unpadded = String(encoded.filter { $0 != "=" })
        #expect(Base64URL.encode(Array(plain.utf8)) == unpadded)
        #expect(Base64URL.decode(unpadded) == Array(plain.utf8))
    }

    @Test func alphabetsDifferOnlyInTheLastTwoCharacters() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(Base64URL.decode("-_-_") == bytes)
        #expect(Base64.decode("+/+/") == bytes)
        // HTTP Basic credentials.
        #expect(Base64.decode("QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == Array("Aladdin:open sesame".utf8))
    }

    @Test func roundTripsEveryLengthAndByte() {
        var bytes: [UInt8] = []
        for length in 0...260 {
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
            bytes.append(UInt8(truncatingIfNeeded: length &* 167 &+ 13))
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
        #expect(Base64URL.decode(utf8: Array(Base64URL.encode(all).utf8)) == all)
    }

    @Test(arguments: [
        "Z",            // impossible length
        "Zg==",         // padding
        "Zg=",
        "Zh",           // non-zero trailing bits
        "Zm9=",
        "Zm+v",         // standard alphabet
        "Zm/v",
        "Zm9v Yg",      // whitespace
        "Zm9v\nYg",
        "Zm9vYg\n",
        "Zm9\u{00e9}",  // non-ASCII
        "Zm\0v",
        "=",
    ])
    func urlRefusesBadInput(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test(arguments: [
        "Zg",           // missing padding
        "Zg=",
        "Zm9vY",
        "Zh==",         // non-zero trailing bits
        "Zm9=",
        "Zg==Zg==",     // padding in the middle
        "Z===",
        "====",
        "Zm-_",         // URL alphabet
        "Zm9v\r\n",
        " Zm9v",
        "Zm9\u{00e9}",
    ])
    func standardRefusesBadInput(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
