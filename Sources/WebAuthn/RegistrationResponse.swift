import Core

/// The JSON a client sends after `navigator.credentials.create()`
/// (`PublicKeyCredential.toJSON()`, WebAuthn §5.1.8), decoded but not yet
/// verified:
///
/// ```
/// {"id","rawId","type":"public-key",
///  "response":{"clientDataJSON","attestationObject","transports"?},
///  "authenticatorAttachment"?,"clientExtensionResults"?}
/// ```
///
/// Other members (`publicKey`, `authenticatorData` in the response) are
/// ignored: they repeat what the attestation object says and are not trusted.
public struct RegistrationResponse: Sendable {
    /// `rawId`, which `id` was checked to encode.
    public let credentialId: [UInt8]
    /// `response.clientDataJSON`, decoded from base64url.
    public let clientDataJSON: [UInt8]
    /// `response.attestationObject`, decoded from base64url.
    public let attestationObject: [UInt8]
    /// `response.transports` (`internal`, `hybrid`, `usb`, …); empty when absent.
    public let transports: [String]
    /// `platform`, `cross-platform`, or nil.
    public let authenticatorAttachment: String?

    /// Reads the credential JSON.
    ///
    /// - Throws: `WebAuthnError.malformedResponse` for a missing or
    ///   mistyped field, `.credentialIdMismatch` when `id` and `rawId`
    ///   differ, `.wrongCredentialType` unless `type` is `public-key`.
    public init(json: JSON) throws(WebAuthnError) {
        credentialId = try json.credentialId()
        let response = try json.responseObject()
        clientDataJSON = try response.requiredBase64URL("clientDataJSON", field: "response.clientDataJSON")
        attestationObject = try response.requiredBase64URL("attestationObject", field: "response.attestationObject")
        var transports: [String] = []
        if let value = response["transports"], !value.isNull {
            guard let elements = value.arrayValue else { throw .malformedResponse(field: "response.transports") }
            for element in elements {
                guard let text = element.stringValue else { throw .malformedResponse(field: "response.transports") }
                transports.append(text)
            }
        }
        self.transports = transports
        if let value = json["authenticatorAttachment"], !value.isNull {
            guard let text = value.stringValue else { throw .malformedResponse(field: "authenticatorAttachment") }
            authenticatorAttachment = text
        } else {
            authenticatorAttachment = nil
        }
    }
}
