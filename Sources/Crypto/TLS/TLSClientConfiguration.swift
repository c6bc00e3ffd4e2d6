import COpenSSL
import Core

/// The settings of TLS client connections, as one OpenSSL `SSL_CTX`:
/// TLS 1.2 or later, the server's certificate always verified (against
/// `caFile`, or the system's trust store when nil), and an optional client
/// certificate. ``stream(fd:serverName:)`` makes one connection's state.
///
/// `@unchecked Sendable` is sound because the context is configured once,
/// in `init`, and only read afterwards: `SSL_new` on a shared, unmodified
/// `SSL_CTX` is safe from any thread (openssl-threads(7)).
public final class TLSClientConfiguration: @unchecked Sendable {
    let context: OpaquePointer

    /// Loads the trust anchors and the client certificate; the error names
    /// the step that failed and OpenSSL's reason, never a key's bytes.
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) throws(CryptoError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw OpenSSLError.capture("SSL_CTX_new") }
        self.context = context
        guard modgud_ssl_ctx_min_tls12(context) == 1 else { throw OpenSSLError.capture("SSL_CTX_set_min_proto_version") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw OpenSSLError.capture("SSL_CTX_load_verify_locations")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw OpenSSLError.capture("SSL_CTX_set_default_verify_paths") }
        }
        if let certificateFile {
            guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
                throw OpenSSLError.capture("SSL_CTX_use_certificate_chain_file")
            }
            guard SSL_CTX_use_PrivateKey_file(context, keyFile ?? certificateFile, SSL_FILETYPE_PEM) == 1 else {
                throw OpenSSLError.capture("SSL_CTX_use_PrivateKey_file")
            }
            guard SSL_CTX_check_private_key(context) == 1 else { throw OpenSSLError.capture("SSL_CTX_check_private_key") }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A client connection over the connected socket `fd` (which the caller
    /// keeps owning). `serverName` is what the certificate must name: a DNS
    /// name (also sent as SNI) or an IP literal (checked against the
    /// certificate's IP addresses; no SNI, which takes no IP).
    public func stream(fd: Int32, serverName: String) throws(CryptoError) -> TLSClientStream {
        guard let ssl = SSL_new(context) else { throw OpenSSLError.capture("SSL_new") }
        let stream = TLSClientStream(ssl: ssl)
        guard SSL_set_fd(ssl, fd) == 1 else { throw OpenSSLError.capture("SSL_set_fd") }
        modgud_ssl_set_partial_writes(ssl)
        if IPAddress(serverName) != nil {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
                throw OpenSSLError.capture("X509_VERIFY_PARAM_set1_ip_asc")
            }
        } else {
            guard SSL_set1_host(ssl, serverName) == 1 else { throw OpenSSLError.capture("SSL_set1_host") }
            guard modgud_ssl_set_sni(ssl, serverName) == 1 else { throw OpenSSLError.capture("SSL_set_tlsext_host_name") }
        }
        return stream
    }
}
