import Core
import Crypto
import WebAuthn

/// Bytes from hex; traps on bad input (test literals only).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8).filter { $0 != UInt8(ascii: " ") }
    precondition(digits.count % 2 == 0, "odd hex length")
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: preconditionFailure("bad hex digit")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
}

extension Array where Element == UInt8 {
    var hex: String { map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

/// The relying party most tests use.
enum Fixture {
    static let rpId = "login.example.com"
    static let origin = "https://login.example.com"
    static let relyingParty = RelyingParty(id: rpId, name: "Example")
    static let userId: [UInt8] = Array("user-4711".utf8)
    static let challenge: [UInt8] = (0..<32).map { UInt8($0 &* 7 &+ 3) }
    static let otherChallenge: [UInt8] = (0..<32).map { UInt8($0 &* 5 &+ 1) }

    static func creationOptions(challenge: [UInt8] = challenge, exclude: [[UInt8]] = []) -> JSON {
        PublicKeyCredentialCreationOptions(
            relyingParty: relyingParty, userId: userId, userName: "ada@example.com", userDisplayName: "Ada",
            challenge: challenge, excludeCredentials: exclude).json
    }

    static func requestOptions(challenge: [UInt8] = challenge, allow: [[UInt8]] = []) -> JSON {
        PublicKeyCredentialRequestOptions(relyingParty: relyingParty, challenge: challenge, allowCredentials: allow).json
    }

    /// Client data as a browser would write it, with any type and origin.
    static func clientData(type: String, challenge: [UInt8] = challenge, origin: String = origin,
                           crossOrigin: Bool = false) -> [UInt8] {
        CollectedClientData(type: type, challenge: challenge, origin: origin, crossOrigin: crossOrigin).bytes
    }
}

/// Parses and verifies a registration JSON.
func verifyRegistration(_ json: JSON, relyingParty: RelyingParty = Fixture.relyingParty,
                        challenge: [UInt8] = Fixture.challenge) throws(WebAuthnError) -> RegisteredCredential {
    try relyingParty.verifyRegistration(RegistrationResponse(json: json), challenge: challenge)
}

/// Parses and verifies an assertion JSON against a stored credential.
func verifyAssertion(_ json: JSON, key: COSEKey, storedSignCount: UInt32 = 0,
                     relyingParty: RelyingParty = Fixture.relyingParty,
                     challenge: [UInt8] = Fixture.challenge) throws(WebAuthnError) -> VerifiedAssertion {
    try relyingParty.verifyAssertion(AssertionResponse(json: json), challenge: challenge,
                                     credentialPublicKey: key, storedSignCount: storedSignCount)
}

extension JSON {
    /// A copy with the base64url member `response.<field>` decoded,
    /// changed by `change` and encoded again.
    func changingResponse(_ field: String, _ change: (inout [UInt8]) -> Void) -> JSON {
        guard case .object(var top) = self, case .object(var response)? = top["response"],
              let text = response[field]?.stringValue, var bytes = Base64URL.decode(text)
        else { preconditionFailure("no response.\(field)") }
        change(&bytes)
        response[field] = .string(Base64URL.encode(bytes))
        top["response"] = .object(response)
        return .object(top)
    }

    /// A copy with the top-level member `key` set to `value` (nil removes it).
    func setting(_ key: String, _ value: JSON?) -> JSON {
        guard case .object(var top) = self else { preconditionFailure("not an object") }
        top[key] = value
        return .object(top)
    }

    /// A copy with `response.<key>` set to `value` (nil removes it).
    func settingResponse(_ key: String, _ value: JSON?) -> JSON {
        guard case .object(var top) = self, case .object(var response)? = top["response"] else {
            preconditionFailure("no response")
        }
        response[key] = value
        top["response"] = .object(response)
        return .object(top)
    }

    /// A copy whose attestation object's map is rewritten by `change`.
    func changingAttestationObject(_ change: (inout [(key: CBOR, value: CBOR)]) -> Void) -> JSON {
        changingResponse("attestationObject") { bytes in
            guard var entries = (try? CBOR.decode(bytes))?.mapValue else { preconditionFailure("bad attestation object") }
            change(&entries)
            bytes = CBOR.map(entries).encoded
        }
    }
}

/// Replaces the value for text key `key` in map entries.
func replace(_ key: String, with value: CBOR, in entries: inout [(key: CBOR, value: CBOR)]) {
    guard let position = entries.firstIndex(where: { $0.key == .text(key) }) else {
        entries.append((.text(key), value))
        return
    }
    entries[position].value = value
}

/// A registered authenticator and credential, ready for assertions.
struct Enrolled {
    var authenticator: SoftwareAuthenticator
    let credential: RegisteredCredential

    init(algorithm: COSEAlgorithm = .es256, configure: (inout SoftwareAuthenticator) -> Void = { _ in }) throws {
        var authenticator = SoftwareAuthenticator()
        configure(&authenticator)
        let json = try authenticator.makeCredential(options: Fixture.creationOptions(), origin: Fixture.origin,
                                                    algorithm: algorithm)
        credential = try verifyRegistration(json)
        self.authenticator = authenticator
    }

    /// An assertion from the credential for the fixture's request options.
    mutating func assert(challenge: [UInt8] = Fixture.challenge, origin: String = Fixture.origin) throws -> JSON {
        try authenticator.getAssertion(options: Fixture.requestOptions(challenge: challenge), origin: origin)
    }
}
