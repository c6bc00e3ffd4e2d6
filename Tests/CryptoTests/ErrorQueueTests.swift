import Testing
@testable import Crypto

/// OpenSSL's error queue is per thread and shared with libcurl's TLS code:
/// every failure path must leave it empty. These tests have no suspension
/// points, so each runs on a single thread from start to finish.
@Suite("OpenSSL error queue hygiene")
struct ErrorQueueTests {
    @Test func failedOpensLeaveTheQueueEmpty() throws {
        let key = [UInt8](repeating: 1, count: 32)
        let sealed = try AESGCM.seal([1, 2, 3] as [UInt8], key: key)
        _ = try? AESGCM.open(sealed.flippingBit(at: 20), key: key)
        _ = try? AESGCM.open(sealed, key: key, associatedData: [9])
        #expect(!OpenSSLError.hasPendingErrors)
    }

    @Test func failedVerificationsLeaveTheQueueEmpty() throws {
        let p256 = try P256PrivateKey()
        _ = p256.publicKey.isValidSignature(derSignature: [0x30, 0x02, 0x02, 0x00], for: [UInt8]())
        _ = p256.publicKey.isValidSignature(derSignature: [UInt8](repeating: 0xff, count: 70), for: [UInt8]())
        _ = p256.publicKey.isValidSignature(rawSignature: [UInt8](repeating: 0, count: 64), for: [UInt8]())
        let ed = try Ed25519PrivateKey()
        _ = ed.publicKey.isValidSignature([UInt8](repeating: 0xff, count: 64), for: [UInt8]())
        let rsa = try RSAPublicKey(modulus: RSATests.foreignModulus, exponent: [1, 0, 1])
        _ = rsa.isValidRS256Signature([UInt8](repeating: 0xff, count: 256), for: [UInt8]())
        _ = rsa.isValidRS256Signature([UInt8](repeating: 1, count: 10), for: [UInt8]())
        #expect(!OpenSSLError.hasPendingErrors)
    }

    @Test func rejectedKeysLeaveTheQueueEmpty() {
        _ = try? P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 1, count: 32))
        _ = try? P256PublicKey(x: P256Tests.rfcKey.x, y: P256Tests.rfcKey.y.flippingBit(at: 0))
        #expect(!OpenSSLError.hasPendingErrors)
    }
}
