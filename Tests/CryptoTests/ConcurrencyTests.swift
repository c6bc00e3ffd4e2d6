import Testing
@testable import Crypto

/// The key types are Sendable because a shared EVP_PKEY is only read and
/// every operation makes its own context; exercise that from many tasks.
@Suite("Shared keys under concurrent use")
struct ConcurrencyTests {
    @Test func oneKeyVerifiesAndSignsFromManyTasksAtOnce() async throws {
        let p256 = try P256PrivateKey()
        let ed25519 = try Ed25519PrivateKey()
        let rsa = try RSATests.keys.get().0
        let message = Array("shared".utf8)
        let es256 = try p256.signature(for: message)
        let eddsa = try ed25519.signature(for: message)
        let rs256 = try rsa.rs256Signature(for: message)

        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures = 0
                    for round in 0..<25 {
                        let mine = message + [UInt8(task), UInt8(round)]
                        if !p256.publicKey.isValidSignature(derSignature: es256, for: message) { failures += 1 }
                        if !ed25519.publicKey.isValidSignature(eddsa, for: message) { failures += 1 }
                        if !rsa.publicKey.isValidRS256Signature(rs256, for: message) { failures += 1 }
                        if p256.publicKey.isValidSignature(derSignature: es256, for: mine) { failures += 1 }
                        guard let signature = try? p256.signature(for: mine),
                              p256.publicKey.isValidSignature(derSignature: signature, for: mine),
                              let edSignature = try? ed25519.signature(for: mine),
                              ed25519.publicKey.isValidSignature(edSignature, for: mine)
                        else { failures += 1; continue }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
