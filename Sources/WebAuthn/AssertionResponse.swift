import Core

/// The JSON a client sends after `navigator.credentials.get()`
/// (`PublicKeyCredential.toJSON()`), decoded but not yet verified:
///
/// ```
/// {"id","rawId","type":"public-key",
///  "response":{"clientDataJSON","authenticatorData","signature","userHandle"?}}
/// ```
///
/// A relying party reads it first to find the stored credential by
/// ``credentialId`` (and, for discoverable credentials, the account by
/// ``userHandle``), then verifies it with
/// `RelyingParty.verifyAssertion(_:challenge:credentialPublicKey:storedSignCount:)`.
public struct AssertionResponse: Sendable {
    /// `rawId`, which `id` was checked to encode.
    public let credentialId: [UInt8]
    /// `response.clientDataJSON`, decoded from base64url.
    public let clientDataJSON: [UInt8]
    /// `response.authenticatorData`, decoded from base64url.
    public let authenticatorData: [UInt8]
    /// `response.signature`, decoded from base64url.
    public let signature: [UInt8]
    /// `response.userHandle`, decoded; nil when absent, null or empty.
    /// Unverified until the assertion is: use it only to look up the account.
    public let userHandle: [UInt8]?

    /// Reads the credential JSON.
    ///
    /// - Throws: `WebAuthnError.malformedResponse` for a missing or
    ///   mistyped field, `.credentialIdMismatch` when `id` and `rawId`
    ///   differ, `.wrongCredentialType` unless `type` is `public-key`.
    public init(json: JSON) throws(WebAuthnError) {
        credentialId = try json.credentialId()
        let response = try json.responseObject()
        clientDataJSON = try response.requiredBase64URL("clientDataJSON", field: "response.clientDataJSON")
        authenticatorData = try response.requiredBase64URL("authenticatorData", field: "response.authenticatorData")
        signature = try response.requiredBase64URL("signature", field: "response.signature")
        let handle = try response.optionalBase64URL("userHandle", field: "response.userHandle")
        userHandle = (handle?.isEmpty ?? true) ? nil : handle
    }
}
