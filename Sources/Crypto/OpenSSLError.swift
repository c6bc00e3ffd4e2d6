import COpenSSL

/// Turns OpenSSL's thread-local error queue into `CryptoError`.
///
/// The queue is always drained after a failure: libcurl's TLS code reads the
/// same per-thread queue, and a stale entry left here would surface there as
/// a spurious error.
enum OpenSSLError {
    /// Captures the first queued reason for a failed call and empties the queue.
    static func capture(_ function: StaticString) -> CryptoError {
        let code = ERR_get_error()
        var reason = ""
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            reason = String(decoding: bytes, as: UTF8.self)
        }
        ERR_clear_error()
        return .openSSL(function: function.description, reason: reason)
    }

    /// Empties the queue after a call whose failure is an expected answer
    /// (a signature that does not verify, a tag that does not match).
    static func discard() {
        ERR_clear_error()
    }

    /// True if this thread's queue holds an entry; tests use it to check
    /// that every failure path drains the queue.
    static var hasPendingErrors: Bool {
        ERR_peek_error() != 0
    }
}
