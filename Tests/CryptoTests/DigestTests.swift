import Testing
@testable import Crypto

@Suite("SHA-256, HMAC-SHA256, constant-time comparison")
struct DigestTests {
    // FIPS 180-2 Appendix B examples, and the empty message.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256KnownAnswers(message: String, digest: String) {
        #expect(SHA256.hash(Array(message.utf8)).hex == digest)
        // Non-array collections give the same answer.
        #expect(SHA256.hash(message.utf8).hex == digest)
        #expect(SHA256.hash(Array(message.utf8)[...]).hex == digest)
    }

    @Test func sha256OfOneMillionA() {
        let digest = SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(digest.hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    // RFC 4231 test cases 1–4, plus 6 (key longer than the block size).
    @Test(arguments: [
        (hex(String(repeating: "0b", count: 20)), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (hex(String(repeating: "aa", count: 20)), hex(String(repeating: "dd", count: 50)),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), hex(String(repeating: "cd", count: 50)),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (hex(String(repeating: "aa", count: 131)), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacSHA256RFC4231(key: [UInt8], message: [UInt8], tag: String) {
        #expect(HMACSHA256.authenticate(key: key, message: message).hex == tag)
    }

    @Test func hmacAcceptsEmptyKeyAndMessage() {
        // HMAC-SHA256("", ""), cross-checked with Python's hmac module.
        #expect(HMACSHA256.authenticate(key: [UInt8](), message: [UInt8]()).hex
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func constantTimeEqualsComparesContentAndLength() {
        #expect(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!constantTimeEquals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!constantTimeEquals([UInt8](), [0] as [UInt8]))
        #expect(constantTimeEquals("token".utf8, Array("token".utf8)[...]))
    }
}
