import Testing
@testable import Crypto

@Suite("HMAC-SHA1")
struct HMACSHA1Tests {
    // RFC 2202 §3, test cases 1–7.
    @Test(arguments: [
        (hex(String(repeating: "0b", count: 20)), Array("Hi There".utf8),
         "b617318655057264e28bc0b6fb378c8ef146be00"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        (hex(String(repeating: "aa", count: 20)), hex(String(repeating: "dd", count: 50)),
         "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
        (hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), hex(String(repeating: "cd", count: 50)),
         "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
        (hex(String(repeating: "0c", count: 20)), Array("Test With Truncation".utf8),
         "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
        (hex(String(repeating: "aa", count: 80)), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
        (hex(String(repeating: "aa", count: 80)),
         Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8),
         "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"),
    ])
    func rfc2202(key: [UInt8], message: [UInt8], tag: String) {
        #expect(HMACSHA1.authenticate(key: key, message: message).hex == tag)
        #expect(HMACSHA1.authenticate(key: key[...], message: message[...]).hex == tag)
    }

    @Test func tagLengthAndEmptyInput() {
        // HMAC-SHA1("", ""), cross-checked with Python's hmac module.
        let tag = HMACSHA1.authenticate(key: [UInt8](), message: [UInt8]())
        #expect(tag.count == HMACSHA1.byteCount)
        #expect(tag.hex == "fbdb1d1b18aa6c08324b7d64b71fb76370690e1d")
    }

    // RFC 6238 Appendix B, SHA-1 rows: the TOTP use this type exists for.
    @Test(arguments: [
        (UInt64(59), "94287082"), (UInt64(1111111109), "07081804"), (UInt64(1111111111), "14050471"),
        (UInt64(1234567890), "89005924"), (UInt64(2000000000), "69279037"), (UInt64(20000000000), "65353130"),
    ])
    func rfc6238(time: UInt64, code: String) {
        let counter = time / 30
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        let tag = HMACSHA1.authenticate(key: Array("12345678901234567890".utf8), message: message)
        let offset = Int(tag[19] & 0x0F)
        let binary = (UInt32(tag[offset] & 0x7F) << 24) | (UInt32(tag[offset + 1]) << 16)
            | (UInt32(tag[offset + 2]) << 8) | UInt32(tag[offset + 3])
        let digits = String(binary % 100_000_000)
        #expect(String(repeating: "0", count: 8 - digits.count) + digits == code)
    }
}
