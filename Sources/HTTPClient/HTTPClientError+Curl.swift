import CCurl

extension HTTPClientError {
    /// Classifies a libcurl result. Timeouts, size and body-source failures
    /// are decided by the transfer, which knows more than the code.
    init(curlCode code: CURLcode) {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            self = .connectFailed
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            self = .invalidURL
        case CURLE_WEIRD_SERVER_REPLY:
            self = .invalidResponse
        case CURLE_FILESIZE_EXCEEDED:
            self = .responseTooLarge
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(requestSent: true)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            self = .tls
        default:
            self = .other(code: Int(code.rawValue))
        }
    }
}
