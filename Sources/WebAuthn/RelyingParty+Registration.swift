import Crypto

extension RelyingParty {
    /// Verifies a registration (WebAuthn §7.1) against the challenge this
    /// relying party issued for it, and returns the credential to store.
    ///
    /// In order: client data (`webauthn.create`, the challenge, an allowed
    /// origin, not cross-origin); the attestation object; authenticator
    /// data (RP ID hash, UP, UV when required, BS only with BE, attested
    /// credential data present, its id equal to `rawId`, a supported key);
    /// and the attestation statement under ``attestationPolicy``.
    ///
    /// Left to the caller: that the credential id is not registered yet,
    /// and that the challenge is used once.
    ///
    /// - Parameter challenge: the bytes issued for this ceremony (at least
    ///   16; a shorter one never matches).
    public func verifyRegistration(_ response: RegistrationResponse, challenge: [UInt8]) throws(WebAuthnError) -> RegisteredCredential {
        let clientData = try CollectedClientData(bytes: response.clientDataJSON)
        try clientData.verify(type: CollectedClientData.createType, challenge: challenge, allowedOrigins: allowedOrigins)

        let (format, statement, authDataBytes) = try Self.readAttestationObject(response.attestationObject)
        let authenticatorData = try AuthenticatorData(bytes: authDataBytes)
        try verifyCommon(authenticatorData)
        guard let attested = authenticatorData.attestedCredentialData else { throw .attestedCredentialDataMismatch }
        guard attested.credentialId == response.credentialId else { throw .credentialIdMismatch }

        let signedData = authDataBytes + SHA256.hash(response.clientDataJSON)
        let kind = try verifyStatement(format: format, statement: statement, key: attested.publicKey, signedData: signedData)
        return RegisteredCredential(
            id: attested.credentialId, publicKey: attested.publicKey, signCount: authenticatorData.signCount,
            flags: authenticatorData.flags, aaguid: attested.aaguid, attestation: kind, transports: response.transports)
    }

    /// `fmt`, `attStmt` and `authData` from the attestation object.
    static func readAttestationObject(_ bytes: [UInt8]) throws(WebAuthnError) -> (String, CBOR, [UInt8]) {
        let item: CBOR
        do { item = try CBOR.decode(bytes) } catch { throw .malformedCBOR(error) }
        guard item.mapValue != nil else { throw .malformedAttestationObject(reason: "not a map") }
        guard let format = item[text: "fmt"]?.textValue else { throw .malformedAttestationObject(reason: "missing fmt") }
        guard let statement = item[text: "attStmt"], statement.mapValue != nil else {
            throw .malformedAttestationObject(reason: "missing attStmt")
        }
        guard let authData = item[text: "authData"]?.bytesValue else {
            throw .malformedAttestationObject(reason: "missing authData")
        }
        return (format, statement, authData)
    }

    private func verifyStatement(format: String, statement: CBOR, key: COSEKey, signedData: [UInt8]) throws(WebAuthnError) -> AttestationKind {
        switch format {
        case "none":
            guard statement.mapValue?.isEmpty == true else { throw .invalidAttestationStatement(reason: "none with a statement") }
            return .none
        case "packed" where statement[text: "x5c"] == nil:
            return try Self.verifyPackedSelf(statement, key: key, signedData: signedData)
        default:
            // `packed` with a certificate chain, or another format.
            guard attestationPolicy == .acceptUnverified else { throw .unsupportedAttestationFormat }
            return .unverified
        }
    }

    /// `packed` self-attestation (WebAuthn §8.2): `alg` is the credential
    /// key's, and `sig` is that key's signature of `authData ‖ clientDataHash`.
    private static func verifyPackedSelf(_ statement: CBOR, key: COSEKey, signedData: [UInt8]) throws(WebAuthnError) -> AttestationKind {
        guard statement[text: "ecdaaKeyId"] == nil else { throw .unsupportedAttestationFormat }
        guard let alg = statement[text: "alg"]?.intValue else { throw .invalidAttestationStatement(reason: "missing alg") }
        guard let signature = statement[text: "sig"]?.bytesValue else { throw .invalidAttestationStatement(reason: "missing sig") }
        guard alg == key.algorithm.rawValue else { throw .invalidAttestationStatement(reason: "alg differs from the credential key") }
        guard key.isValidSignature(signature, for: signedData) else { throw .invalidSignature }
        return .selfAttestation
    }
}
