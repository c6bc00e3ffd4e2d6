import Crypto

extension RelyingParty {
    /// Verifies an assertion (WebAuthn §7.2) with the stored credential.
    ///
    /// In order: client data (`webauthn.get`, the challenge, an allowed
    /// origin, not cross-origin); authenticator data (RP ID hash, UP, UV
    /// when required, BS only with BE, no attested credential data); the
    /// signature over `authenticatorData ‖ SHA-256(clientDataJSON)` with
    /// `credentialPublicKey` (ES256: DER; EdDSA: 64 raw bytes); and the
    /// sign-count rule, whose verdict is returned, not thrown.
    ///
    /// Left to the caller: that ``AssertionResponse/credentialId`` belongs
    /// to `credentialPublicKey`, that ``VerifiedAssertion/userHandle`` is
    /// that credential's user, that the challenge is used once, and what
    /// to do with ``SignCountStatus/possibleClone``.
    ///
    /// - Parameter challenge: the bytes issued for this ceremony (at least
    ///   16; a shorter one never matches).
    public func verifyAssertion(_ response: AssertionResponse, challenge: [UInt8],
                                credentialPublicKey: COSEKey, storedSignCount: UInt32) throws(WebAuthnError) -> VerifiedAssertion {
        let clientData = try CollectedClientData(bytes: response.clientDataJSON)
        try clientData.verify(type: CollectedClientData.getType, challenge: challenge, allowedOrigins: allowedOrigins)

        let authenticatorData = try AuthenticatorData(bytes: response.authenticatorData)
        try verifyCommon(authenticatorData)
        guard authenticatorData.attestedCredentialData == nil else { throw .attestedCredentialDataMismatch }

        let signedData = response.authenticatorData + SHA256.hash(response.clientDataJSON)
        guard credentialPublicKey.isValidSignature(response.signature, for: signedData) else { throw .invalidSignature }

        let newCount = authenticatorData.signCount
        return VerifiedAssertion(
            credentialId: response.credentialId, userHandle: response.userHandle, signCount: newCount,
            signCountStatus: Self.signCountStatus(stored: storedSignCount, new: newCount),
            flags: authenticatorData.flags)
    }

    /// WebAuthn §7.2 step 21: when either counter is non-zero, the new one
    /// must be greater; otherwise the credential may have been cloned. A
    /// stored count of 5 followed by 0 is therefore a clone signal too.
    static func signCountStatus(stored: UInt32, new: UInt32) -> SignCountStatus {
        if stored == 0 && new == 0 { return .notSupported }
        return new > stored ? .advanced : .possibleClone
    }
}
