import Core
import Crypto

/// A software passkey authenticator and the browser in front of it: for
/// tests, and for the simulator's self-check. Never for production.
///
/// It holds discoverable credentials (ES256 by default, EdDSA on request),
/// reads options JSON, builds client data exactly as a browser serializes
/// it, signs, and answers with the JSON of `PublicKeyCredential.toJSON()`.
/// Each operation sets UP and UV (unless switched off to test refusals) and
/// increments the credential's signature counter (unless
/// ``countsSignatures`` is off, as for synced passkeys).
///
/// Unlike a browser it does not check that the RP ID suits the origin: it
/// signs for whatever it is told, so tests can build hostile ceremonies.
/// A value type: the simulator keeps one inside an actor or a lock.
public struct SoftwareAuthenticator: Sendable {
    /// The attestation statement ``makeCredential(options:origin:algorithm:)`` produces.
    public enum AttestationFormat: Sendable, Hashable {
        /// `none`, as a client sends when the RP asks for no attestation.
        case none
        /// `packed` self-attestation, signed with the new credential's key.
        case packedSelf
    }

    /// The credentials held, oldest first.
    public private(set) var credentials: [SoftwareCredential] = []
    /// The attestation format of new credentials.
    public var attestationFormat: AttestationFormat
    /// The AAGUID written into attested credential data (16 bytes).
    public var aaguid: [UInt8]
    /// Sets UP. Off only to test a relying party's refusal.
    public var userPresent = true
    /// Sets UV. Off only to test a relying party's refusal.
    public var userVerified = true
    /// Sets BE (and BS with ``backedUp``).
    public var backupEligible = false
    /// Sets BS.
    public var backedUp = false
    /// Increments the counter on each assertion; off keeps it at 0.
    public var countsSignatures = true

    /// An empty authenticator.
    public init(attestationFormat: AttestationFormat = .none, aaguid: [UInt8] = [UInt8](repeating: 0, count: 16)) {
        self.attestationFormat = attestationFormat
        self.aaguid = aaguid
    }

    var flags: AuthenticatorFlags {
        var flags: AuthenticatorFlags = []
        if userPresent { flags.insert(.userPresent) }
        if userVerified { flags.insert(.userVerified) }
        if backupEligible { flags.insert(.backupEligible) }
        if backedUp { flags.insert(.backedUp) }
        return flags
    }

    /// Runs `navigator.credentials.create()` with creation options JSON
    /// (bare, or as `{"publicKey": …}`) on a page at `origin`, and returns
    /// the registration JSON. A credential for the same RP ID and user
    /// handle is replaced, as platform authenticators do.
    ///
    /// - Parameter algorithm: the key to create; must be in `pubKeyCredParams`.
    /// - Throws: `WebAuthnError.invalidOptions`, `.noSupportedAlgorithm`,
    ///   `.credentialExcluded`, `.crypto`.
    public mutating func makeCredential(options: JSON, origin: String, algorithm: COSEAlgorithm = .es256) throws(WebAuthnError) -> JSON {
        let request = try Self.creationRequest(options, origin: origin)
        guard request.algorithms.contains(algorithm.rawValue) else { throw .noSupportedAlgorithm }
        let excluded = credentials.contains { credential in
            credential.rpId == request.rpId && request.excludeCredentials.contains(credential.id)
        }
        guard !excluded else { throw .credentialExcluded }
        let clientData = CollectedClientData(type: CollectedClientData.createType, challenge: request.challenge, origin: origin)
        return try makeCredential(rpId: request.rpId, userHandle: request.userId, userName: request.userName,
                                  clientDataJSON: clientData.bytes, algorithm: algorithm)
    }

    /// The authenticator half of registration, for tests that need client
    /// data no browser would send: creates a credential for `rpId` and signs
    /// over `clientDataJSON` as given.
    public mutating func makeCredential(rpId: String, userHandle: [UInt8], userName: String, clientDataJSON: [UInt8],
                                        algorithm: COSEAlgorithm = .es256) throws(WebAuthnError) -> JSON {
        let credential = try SoftwareCredential(algorithm: algorithm, rpId: rpId, userHandle: userHandle, userName: userName)
        let attested = AttestedCredentialData(aaguid: aaguid, credentialId: credential.id, publicKey: credential.publicKey)
        let authData = AuthenticatorData(rpId: rpId, flags: flags, signCount: 0, attestedCredentialData: attested)
        var statement = CBOR.map([])
        var format = "none"
        if attestationFormat == .packedSelf {
            format = "packed"
            let signature = try credential.sign(authData.bytes + SHA256.hash(clientDataJSON))
            statement = .map([(.text("alg"), .int(credential.algorithm.rawValue)), (.text("sig"), .bytes(signature))])
        }
        let attestationObject = CBOR.map([
            (.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData.bytes)),
        ])
        credentials.removeAll { $0.rpId == rpId && $0.userHandle == userHandle }
        credentials.append(credential)
        let id = JSON.string(Base64URL.encode(credential.id))
        return [
            "id": id, "rawId": id,
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
                "authenticatorData": .string(Base64URL.encode(authData.bytes)),
                "transports": ["internal", "hybrid"],
                "publicKey": .string(Base64URL.encode(credential.subjectPublicKeyInfo)),
                "publicKeyAlgorithm": .int(Int64(credential.algorithm.rawValue)),
                "attestationObject": .string(Base64URL.encode(attestationObject.encoded)),
            ],
            "authenticatorAttachment": "platform", "clientExtensionResults": .object(JSONObject()), "type": "public-key",
        ]
    }

    /// Runs `navigator.credentials.get()` with request options JSON (bare,
    /// or as `{"publicKey": …}`) on a page at `origin`, and returns the
    /// assertion JSON. Picks `credentialId` if given, else the newest
    /// credential for the RP ID that `allowCredentials` (when not empty) lists.
    ///
    /// - Throws: `WebAuthnError.invalidOptions`, `.noCredential`, `.crypto`.
    public mutating func getAssertion(options: JSON, origin: String, credentialId: [UInt8]? = nil) throws(WebAuthnError) -> JSON {
        let request = try Self.assertionRequest(options, origin: origin)
        let clientData = CollectedClientData(type: CollectedClientData.getType, challenge: request.challenge, origin: origin)
        return try getAssertion(rpId: request.rpId, clientDataJSON: clientData.bytes,
                                allowCredentials: request.allowCredentials, credentialId: credentialId)
    }

    /// The authenticator half of sign-in, for tests that need client data
    /// no browser would send: signs `clientDataJSON` as given.
    public mutating func getAssertion(rpId: String, clientDataJSON: [UInt8], allowCredentials: [[UInt8]] = [],
                                      credentialId: [UInt8]? = nil) throws(WebAuthnError) -> JSON {
        let position = credentials.lastIndex { credential in
            credential.rpId == rpId
                && (allowCredentials.isEmpty || allowCredentials.contains(credential.id))
                && (credentialId == nil || credentialId == credential.id)
        }
        guard let position else { throw .noCredential }
        if countsSignatures { credentials[position].signCount &+= 1 }
        let credential = credentials[position]
        let authData = AuthenticatorData(rpId: rpId, flags: flags, signCount: credential.signCount)
        let signature = try credential.sign(authData.bytes + SHA256.hash(clientDataJSON))
        let id = JSON.string(Base64URL.encode(credential.id))
        return [
            "id": id, "rawId": id,
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
                "authenticatorData": .string(Base64URL.encode(authData.bytes)),
                "signature": .string(Base64URL.encode(signature)),
                "userHandle": .string(Base64URL.encode(credential.userHandle)),
            ],
            "authenticatorAttachment": "platform", "clientExtensionResults": .object(JSONObject()), "type": "public-key",
        ]
    }
}
