import Crypto

/// A discoverable credential held by a ``SoftwareAuthenticator``.
public struct SoftwareCredential: Sendable {
    /// The credential id (32 random bytes).
    public let id: [UInt8]
    /// The RP ID it is scoped to.
    public let rpId: String
    /// The user handle given at creation (`user.id`).
    public let userHandle: [UInt8]
    /// The account name given at creation (`user.name`).
    public let userName: String
    /// The public key, as registered.
    public let publicKey: COSEKey
    /// The signature counter after the last operation.
    public internal(set) var signCount: UInt32
    let signingKey: SigningKey

    /// The private half of a software credential.
    enum SigningKey: Sendable {
        case p256(P256PrivateKey)
        case ed25519(Ed25519PrivateKey)
    }

    /// A fresh credential with a new key pair for `algorithm`.
    init(algorithm: COSEAlgorithm, rpId: String, userHandle: [UInt8], userName: String) throws(WebAuthnError) {
        do {
            id = try SecureRandom.bytes(count: 32)
            switch algorithm {
            case .es256:
                let key = try P256PrivateKey()
                signingKey = .p256(key)
                publicKey = COSEKey(p256: key.publicKey)
            case .edDSA:
                let key = try Ed25519PrivateKey()
                signingKey = .ed25519(key)
                publicKey = COSEKey(ed25519: key.publicKey)
            }
        } catch {
            throw .crypto(error)
        }
        self.rpId = rpId
        self.userHandle = userHandle
        self.userName = userName
        self.signCount = 0
    }

    /// The algorithm of the key.
    public var algorithm: COSEAlgorithm { publicKey.algorithm }

    /// Signs `message`: ES256 in DER, EdDSA as 64 raw bytes.
    func sign(_ message: [UInt8]) throws(WebAuthnError) -> [UInt8] {
        do {
            switch signingKey {
            case .p256(let key): return try key.signature(for: message)
            case .ed25519(let key): return try key.signature(for: message)
            }
        } catch {
            throw .crypto(error)
        }
    }

    /// The public key as a DER `SubjectPublicKeyInfo`, as browsers report it
    /// in `response.publicKey`.
    var subjectPublicKeyInfo: [UInt8] {
        switch publicKey.publicKey {
        case .p256(let key):
            // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 04 ‖ x ‖ y }
            return [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
                    0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04] + key.x + key.y
        case .ed25519(let key):
            // SEQUENCE { SEQUENCE { id-Ed25519 }, BIT STRING key }
            return [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00] + key.rawRepresentation
        }
    }
}

extension SoftwareCredential: CustomStringConvertible {
    /// Never shows key material.
    public var description: String { "SoftwareCredential(\(algorithm), <redacted>)" }
}
