import Core
import Crypto
@testable import ModgudSimulator
import OIDC
import Testing

@Suite struct JWKSetTests {
    static func rsaKey(kid: String, _ changes: [(String, JSON?)] = []) -> JSON {
        var key = JSONObject()
        for (name, value) in Fixtures.primary.jwks["keys"]![0]!.objectValue! { key[name] = value }
        key["kid"] = .string(kid)
        for (name, value) in changes { key[name] = value }
        return .object(key)
    }

    @Test func badKeysAreSkippedAndKeysForOtherUsesAreMarked() throws {
        let set = try JWKSet(json: ["keys": [
            Self.rsaKey(kid: "good"),
            Self.rsaKey(kid: "no-alg", [("alg", nil), ("use", nil)]),
            Self.rsaKey(kid: "short-n", [("n", .string(Base64URL.encode([UInt8](repeating: 0xFF, count: 128))))]),
            Self.rsaKey(kid: "bad-e", [("e", "!!")]),
            Self.rsaKey(kid: "no-n", [("n", nil)]),
            Self.rsaKey(kid: "", []),
            Self.rsaKey(kid: "enc", [("use", "enc")]),
            Self.rsaKey(kid: "ps256", [("alg", "PS256")]),
            ["kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"],
            "not a key",
            Self.rsaKey(kid: "twice"), Self.rsaKey(kid: "twice"),
        ]])
        #expect(set.count == 2)
        #expect(set.lookup("good") == .key(Fixtures.primary.key.publicKey))
        #expect(set.lookup("no-alg") == .key(Fixtures.primary.key.publicKey))
        for kid in ["short-n", "bad-e", "no-n", "absent"] { #expect(set.lookup(kid) == .unknown) }
        for kid in ["enc", "ps256", "ec", "twice"] { #expect(set.lookup(kid) == .notForRS256) }
        #expect(!"\(set)".contains("good"))
    }

    @Test func aDocumentWithoutAKeysArrayIsRefused() {
        #expect(throws: JWTError.malformed) { try JWKSet(json: ["keys": "none"]) }
        #expect(throws: JWTError.malformed) { try JWKSet(bytes: Array("{\"keys\":[".utf8)) }
    }

    @Test func theSimulatorsDocumentParsesFromItsBytes() throws {
        let set = try JWKSet(bytes: Fixtures.primary.jwks.serialized)
        #expect(set.lookup(Fixtures.primary.kid) == .key(Fixtures.primary.key.publicKey))
    }
}
