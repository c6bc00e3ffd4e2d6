import Core
import Crypto

// Reading credential and options JSON with typed errors. `field` is always
// our own constant, never taken from the input.
extension JSON {
    /// The string member `key`, or `malformedResponse(field:)`.
    func requiredString(_ key: String, field: String) throws(WebAuthnError) -> String {
        guard let value = self[key]?.stringValue else { throw .malformedResponse(field: field) }
        return value
    }

    /// The base64url member `key`, decoded, or `malformedResponse(field:)`.
    func requiredBase64URL(_ key: String, field: String) throws(WebAuthnError) -> [UInt8] {
        guard let text = self[key]?.stringValue, let bytes = Base64URL.decode(text) else {
            throw .malformedResponse(field: field)
        }
        return bytes
    }

    /// The base64url member `key` decoded; `nil` when absent or null.
    func optionalBase64URL(_ key: String, field: String) throws(WebAuthnError) -> [UInt8]? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let text = value.stringValue, let bytes = Base64URL.decode(text) else {
            throw .malformedResponse(field: field)
        }
        return bytes
    }

    /// `id`, `rawId` and `type` of a `PublicKeyCredential`: checks that
    /// `type` is `public-key` and that `id` encodes the same bytes as
    /// `rawId`, and returns those bytes.
    func credentialId() throws(WebAuthnError) -> [UInt8] {
        guard case .object = self else { throw .malformedResponse(field: "credential") }
        let rawId = try requiredBase64URL("rawId", field: "rawId")
        let id = try requiredBase64URL("id", field: "id")
        guard !rawId.isEmpty, id == rawId else { throw .credentialIdMismatch }
        guard try requiredString("type", field: "type") == "public-key" else { throw .wrongCredentialType }
        return rawId
    }

    /// The `response` member, which must be an object.
    func responseObject() throws(WebAuthnError) -> JSON {
        guard let response = self["response"], case .object = response else {
            throw .malformedResponse(field: "response")
        }
        return response
    }
}
