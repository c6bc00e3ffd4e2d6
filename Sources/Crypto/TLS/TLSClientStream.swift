import COpenSSL

/// What one TLS call did.
public enum TLSResult: Equatable, Sendable {
    /// The handshake finished (`0`), or so many bytes were read or written.
    case done(Int)
    /// Call again once the socket is readable.
    case wantRead
    /// Call again once the socket is writable.
    case wantWrite
    /// The peer ended the stream (a TLS close or the TCP end).
    case closed
    /// The connection cannot go on; the reason is safe to log (OpenSSL's
    /// reason or the certificate check's verdict, never data).
    case failed(String)
}

/// One TLS client connection over a non-blocking socket the caller owns
/// and polls: ``handshake()`` until `.done`, then ``read(into:)`` and
/// ``write(from:)``, each answering what to wait for. Confined to one
/// thread (the event loop that owns the socket). Frees its `SSL` on
/// deinit; the socket stays the caller's to close.
public final class TLSClientStream {
    private let ssl: OpaquePointer

    init(ssl: OpaquePointer) {
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
    }

    /// Advances the handshake; `.done(0)` once the server is verified.
    public func handshake() -> TLSResult {
        ERR_clear_error()
        let rc = SSL_connect(ssl)
        if rc == 1 { return .done(0) }
        let result = outcome(rc)
        if case .failed = result, SSL_get_verify_result(ssl) != X509_V_OK {
            let verdict = String(cString: X509_verify_cert_error_string(SSL_get_verify_result(ssl)))
            return .failed("certificate verify failed: \(verdict)")
        }
        return result
    }

    /// Reads decrypted bytes into `buffer`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSResult {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return n > 0 ? .done(Int(n)) : outcome(n)
    }

    /// Encrypts and sends bytes from `buffer` (possibly only some of them).
    public func write(from buffer: UnsafeRawBufferPointer) -> TLSResult {
        ERR_clear_error()
        let n = SSL_write(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return n > 0 ? .done(Int(n)) : outcome(n)
    }

    /// Whether decrypted bytes wait inside OpenSSL: the socket may show no
    /// readiness for them, so the reader calls ``read(into:)`` again.
    public var hasBufferedInput: Bool { SSL_pending(ssl) > 0 }

    private func outcome(_ rc: Int32) -> TLSResult {
        let code = SSL_get_error(ssl, rc)
        switch code {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            ERR_clear_error()
            return .closed
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            // The TCP stream ended or failed without a TLS close.
            return .closed
        default:
            let error = OpenSSLError.capture("TLS")
            if case .openSSL(_, let reason) = error, !reason.isEmpty { return .failed(reason) }
            return .failed("TLS error \(code)")
        }
    }
}
