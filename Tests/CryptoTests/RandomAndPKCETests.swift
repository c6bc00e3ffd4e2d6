import Testing
@testable import Crypto

@Suite("SecureRandom and PKCE")
struct RandomAndPKCETests {
    @Test(arguments: [0, 1, 12, 32, 4096])
    func bytesHaveTheRequestedCount(_ count: Int) throws {
        #expect(try SecureRandom.bytes(count: count).count == count)
    }

    @Test func bytesDiffer() throws {
        #expect(try SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
    }

    @Test func refusesNegativeCount() {
        #expect(throws: CryptoError.self) { try SecureRandom.bytes(count: -1) }
    }

    @Test func tokensAreURLSafeAndUnpadded() throws {
        let token = try SecureRandom.token(byteCount: 32)
        #expect(token.utf8.count == 43)
        #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        #expect(Base64URL.decode(token)?.count == 32)
        #expect(try SecureRandom.token() != SecureRandom.token())
        #expect(try SecureRandom.token(byteCount: 16).utf8.count == 22)
    }

    @Test func pkceS256MatchesRFC7636AppendixB() {
        #expect(PKCE.s256Challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
            == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func pkceVerifiersAre43UnreservedCharacters() throws {
        let verifier = try PKCE.makeVerifier()
        #expect(verifier.utf8.count == 43)
        #expect(PKCE.s256Challenge(for: verifier).utf8.count == 43)
        #expect(try PKCE.makeVerifier() != verifier)
    }
}
