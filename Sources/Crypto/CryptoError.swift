/// Why a cryptographic operation failed.
///
/// Every case is safe to log: none carries key material, plaintext or a
/// signature, only sizes and OpenSSL's own reason strings.
public enum CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key had the wrong length (AES-256: 32 bytes; Ed25519: 32 bytes;
    /// a P-256 coordinate: 32 bytes).
    case invalidKeySize(expected: Int, actual: Int)
    /// Public or private key material was rejected: a point not on the
    /// curve, an RSA modulus outside 2048–8192 bits, an unusable exponent.
    case invalidKey(reason: String)
    /// An argument outside what the operation accepts (a length too large
    /// for OpenSSL's `int`, an HKDF output longer than 255 × 32 bytes, …).
    case invalidArgument(reason: String)
    /// `AESGCM.open` refused its input: tampered, truncated, wrong key or
    /// wrong associated data. Deliberately says no more than that.
    case authenticationFailure
    /// OpenSSL reported a failure. `function` names the call that failed,
    /// `reason` is the first entry of OpenSSL's error queue (may be empty).
    case openSSL(function: String, reason: String)

    /// A one-line, log-safe explanation.
    public var description: String {
        switch self {
        case .invalidKeySize(let expected, let actual):
            return "invalid key size: expected \(expected) bytes, got \(actual)"
        case .invalidKey(let reason):
            return "invalid key: \(reason)"
        case .invalidArgument(let reason):
            return "invalid argument: \(reason)"
        case .authenticationFailure:
            return "authentication failure"
        case .openSSL(let function, let reason):
            return reason.isEmpty ? "\(function) failed" : "\(function) failed: \(reason)"
        }
    }
}
