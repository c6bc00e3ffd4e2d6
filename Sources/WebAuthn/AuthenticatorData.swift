import Crypto

/// Authenticator data (WebAuthn §6.1): what the authenticator signs about
/// itself.
///
/// ```
/// rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian)
///   ‖ attested credential data (if AT) ‖ extensions, a CBOR map (if ED)
/// ```
///
/// Parsing is exact: every byte must be accounted for by the flags, so
/// data after the declared parts, or a flag without its part, is refused.
/// Extensions are checked to be one well-formed CBOR map and then skipped.
public struct AuthenticatorData: Sendable, Hashable {
    /// SHA-256 of the RP ID the authenticator scoped the credential to.
    public let rpIdHash: [UInt8]
    /// The flags byte.
    public let flags: AuthenticatorFlags
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// Present when AT is set.
    public let attestedCredentialData: AttestedCredentialData?
    /// The extensions map's encoding when ED is set (not interpreted).
    public let extensions: [UInt8]?
    /// The bytes as received: what the signature covers.
    public let bytes: [UInt8]

    /// Size of the fixed part: rpIdHash, flags and signCount.
    static let fixedLength = 37

    /// Parses authenticator data.
    ///
    /// - Throws: `WebAuthnError.malformedAuthenticatorData` when it is
    ///   truncated or has unaccounted bytes; `.malformedCBOR`,
    ///   `.unsupportedKey` or `.invalidKey` for the embedded key.
    public init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let bytes = Array(bytes)
        guard bytes.count >= Self.fixedLength else { throw .malformedAuthenticatorData(reason: "shorter than 37 bytes") }
        let flags = AuthenticatorFlags(rawValue: bytes[32])
        var index = Self.fixedLength
        var attested: AttestedCredentialData?
        if flags.contains(.attestedCredentialData) {
            guard bytes.count - index >= 18 else { throw .malformedAuthenticatorData(reason: "truncated attested credential data") }
            let aaguid = Array(bytes[index..<(index + 16)])
            let idLength = Int(bytes[index + 16]) << 8 | Int(bytes[index + 17])
            index += 18
            guard idLength >= 1, idLength <= AttestedCredentialData.maxCredentialIdLength else {
                throw .malformedAuthenticatorData(reason: "credential id length out of range")
            }
            guard bytes.count - index >= idLength else { throw .malformedAuthenticatorData(reason: "truncated credential id") }
            let credentialId = Array(bytes[index..<(index + idLength)])
            index += idLength
            let (keyItem, keyLength) = try Self.readItem(bytes[index...])
            let key = try COSEKey(item: keyItem, bytes: Array(bytes[index..<(index + keyLength)]))
            index += keyLength
            attested = AttestedCredentialData(aaguid: aaguid, credentialId: credentialId, publicKey: key)
        }
        var extensions: [UInt8]?
        if flags.contains(.extensionData) {
            let (item, length) = try Self.readItem(bytes[index...])
            guard item.mapValue != nil else { throw .malformedAuthenticatorData(reason: "extensions are not a map") }
            extensions = Array(bytes[index..<(index + length)])
            index += length
        }
        guard index == bytes.count else { throw .malformedAuthenticatorData(reason: "unexpected bytes after the declared parts") }
        self.rpIdHash = Array(bytes[0..<32])
        self.flags = flags
        self.signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        self.attestedCredentialData = attested
        self.extensions = extensions
        self.bytes = bytes
    }

    /// Builds authenticator data; used by the software authenticator. The
    /// AT and ED flags are set from the parts given.
    public init(rpId: String, flags: AuthenticatorFlags, signCount: UInt32,
                attestedCredentialData: AttestedCredentialData? = nil) {
        var flags = flags.subtracting([.attestedCredentialData, .extensionData])
        if attestedCredentialData != nil { flags.insert(.attestedCredentialData) }
        let hash = SHA256.hash(rpId.utf8)
        var bytes = hash
        bytes.append(flags.rawValue)
        for shift in [24, 16, 8, 0] { bytes.append(UInt8(truncatingIfNeeded: signCount >> UInt32(shift))) }
        if let attestedCredentialData { bytes += attestedCredentialData.encoded }
        self.rpIdHash = hash
        self.flags = flags
        self.signCount = signCount
        self.attestedCredentialData = attestedCredentialData
        self.extensions = nil
        self.bytes = bytes
    }

    /// True when ``rpIdHash`` is SHA-256 of `rpId` (compared in constant time).
    public func matches(rpId: String) -> Bool {
        constantTimeEquals(rpIdHash, SHA256.hash(rpId.utf8))
    }

    private static func readItem(_ slice: ArraySlice<UInt8>) throws(WebAuthnError) -> (CBOR, Int) {
        do {
            let (item, length) = try CBOR.decodePrefix(slice)
            return (item, length)
        } catch {
            throw .malformedCBOR(error)
        }
    }
}
