import COpenSSL

/// HMAC with SHA-256 (RFC 2104), computed here over OpenSSL's SHA-256 with
/// the digest fetched once: OpenSSL 3's one-shot MAC and KDF calls fetch
/// their algorithms by name on every call, which costs more than the
/// hashing itself for the short inputs the gateway authenticates.
public enum HMACSHA256 {
    /// The tag length in bytes.
    public static let byteCount = 32
    static let blockCount = 64

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key`. Any key
    /// length is allowed (longer than 64 bytes is hashed first, per RFC 2104).
    ///
    /// Compare tags with `constantTimeEquals`, never with `==`.
    @inlinable
    public static func authenticate(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        key.withInputBytes { key in
            message.withInputBytes { message in authenticate(keyBytes: key, messageBytes: message) }
        }
    }

    @usableFromInline
    static func authenticate(keyBytes key: UnsafeRawBufferPointer, messageBytes message: UnsafeRawBufferPointer) -> [UInt8] {
        authenticate(keyBytes: key, messageParts: [message])
    }

    /// The HMAC of the concatenation of `parts`.
    static func authenticate(keyBytes key: UnsafeRawBufferPointer, messageParts parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        // K0: the key, hashed when longer than a block, zero-padded (RFC 2104 §2).
        var block = [UInt8](repeating: 0, count: blockCount)
        if key.count > blockCount {
            let digest = SHA256.hash(bytes: key)
            block.replaceSubrange(0..<digest.count, with: digest)
        } else if key.count > 0 {
            block.withUnsafeMutableBytes { $0.copyMemory(from: key) }
        }
        defer { block.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        let context = DigestContext()
        for index in block.indices { block[index] ^= 0x36 }
        let inner = block.withUnsafeBytes { innerPad in context.sha256([innerPad] + parts) }
        for index in block.indices { block[index] ^= 0x36 ^ 0x5C }
        return block.withUnsafeBytes { outerPad in
            inner.withUnsafeBytes { inner in context.sha256([outerPad, inner]) }
        }
    }
}

/// One EVP_MD_CTX, reused for the hashes of one HMAC.
final class DigestContext {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// SHA-256 of the concatenation of `parts`.
    func sha256(_ parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: SHA256.byteCount) { output, initialized in
            var size: UInt32 = 0
            var status = EVP_DigestInit_ex2(context, SHA256.algorithm, nil)
            for part in parts where status == 1 && part.count > 0 {
                status = EVP_DigestUpdate(context, part.baseAddress, part.count)
            }
            if status == 1 { status = EVP_DigestFinal_ex(context, output.baseAddress, &size) }
            guard status == 1, size == SHA256.byteCount else {
                fatalError("SHA-256 failed: \(OpenSSLError.capture("EVP_Digest"))")
            }
            initialized = SHA256.byteCount
        }
    }
}
