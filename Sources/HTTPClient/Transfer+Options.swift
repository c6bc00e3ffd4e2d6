import CCurl
import HTTPCodec

extension Transfer {
    /// Sets every option of the (fresh or reset) easy handle for `request`.
    /// `streamed` transfers get no total timeout (their idle timeout is the
    /// transfer's own watchdog) and no default size limit.
    func configure(_ request: HTTPClientRequest, _ configuration: HTTPClientConfiguration,
                   streamed: Bool) -> HTTPClientError? {
        var failed = false
        func long(_ option: CURLoption, _ value: Int) {
            if ccurl_easy_setopt_long(easy, option, value) != CURLE_OK { failed = true }
        }
        func string(_ option: CURLoption, _ value: String) {
            if value.withCString({ ccurl_easy_setopt_string(easy, option, $0) }) != CURLE_OK { failed = true }
        }
        func pointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
            if ccurl_easy_setopt_pointer(easy, option, value) != CURLE_OK { failed = true }
        }

        // Identity, so a finished handle leads back to this transfer.
        pointer(CURLOPT_PRIVATE, UnsafeMutableRawPointer(bitPattern: UInt(id)))
        if request.url.withCString({ ccurl_easy_setopt_string(easy, CURLOPT_URL, $0) }) != CURLE_OK {
            return .invalidURL
        }
        // Safety: no signals, no proxy from the environment, http(s) only,
        // no redirects, HTTP/1.1 (predictable framing and pausing).
        long(CURLOPT_NOSIGNAL, 1)
        string(CURLOPT_PROXY, "")
        string(CURLOPT_PROTOCOLS_STR, "http,https")
        string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        long(CURLOPT_FOLLOWLOCATION, 0)
        // The path goes out as given, never with `.`/`..` segments resolved
        // by libcurl: callers decide what a path may hold (the API proxy
        // refuses dot segments before it builds a URL).
        long(CURLOPT_PATH_AS_IS, 1)
        long(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        // Time.
        long(CURLOPT_CONNECTTIMEOUT_MS, max(1, configuration.connectTimeout.milliseconds))
        if !streamed {
            long(CURLOPT_TIMEOUT_MS, max(1, (request.timeout ?? configuration.timeout).milliseconds))
        }
        long(CURLOPT_MAXAGE_CONN, max(1, configuration.maxIdleConnectionAge.milliseconds / 1000))
        // TLS.
        long(CURLOPT_SSL_VERIFYPEER, configuration.verifyTLS ? 1 : 0)
        long(CURLOPT_SSL_VERIFYHOST, configuration.verifyTLS ? 2 : 0)
        if let caFile = configuration.caFile {
            string(CURLOPT_CAINFO, caFile)
            // Instead of the system's CAs, not beside them: Debian's libcurl
            // also reads its built-in CA directory (/etc/ssl/certs) unless
            // that is cleared too.
            if ccurl_easy_setopt_pointer(easy, CURLOPT_CAPATH, nil) != CURLE_OK { failed = true }
        }
        if request.decodeContentEncoding { string(CURLOPT_ACCEPT_ENCODING, "") }
        // Size.
        responseLimit = request.maxResponseBytes ?? (streamed ? nil : configuration.maxResponseBytes)
        if let responseLimit {
            if ccurl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(responseLimit)) != CURLE_OK { failed = true }
        }
        // No CURLOPT_BUFFERSIZE: a size other than the default makes
        // libcurl free and allocate its receive buffer on every reuse of
        // the handle (curl_easy_reset restores the default), which costs
        // more per request than the default 16 KiB pieces cost a stream.
        // Callbacks.
        if ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback) != CURLE_OK { failed = true }
        pointer(CURLOPT_WRITEDATA, context)
        if ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback) != CURLE_OK { failed = true }
        pointer(CURLOPT_HEADERDATA, context)
        head = ResponseHeadParser(headRequest: request.method == .head)
        // Connections opened close-on-exec (libcurl does not ask for it).
        if ccurl_easy_setopt_opensocket_function(easy, transferOpenSocketCallback) != CURLE_OK { failed = true }
        configureMethod(request, long: long, string: string, pointer: pointer)
        setHeaders(request.headers)
        return failed ? .other(code: Int(CURLE_BAD_FUNCTION_ARGUMENT.rawValue)) : nil
    }

    /// The method and the body. A body is always sent through the read
    /// callback as an "upload" with the method named explicitly, which
    /// keeps libcurl from adding a form Content-Type.
    private func configureMethod(_ request: HTTPClientRequest, long: (CURLoption, Int) -> Void,
                                 string: (CURLoption, String) -> Void,
                                 pointer: (CURLoption, UnsafeMutableRawPointer?) -> Void) {
        let method = request.method
        let sendsBody: Bool
        switch source {
        case .none: sendsBody = [.post, .put, .patch].contains(method)
        case .bytes, .stream: sendsBody = true
        }
        if sendsBody {
            long(CURLOPT_UPLOAD, 1)
            let length: Int? = switch source {
            case .none: 0
            case .bytes(let bytes): bytes.count
            case .stream(_, let length): length
            }
            _ = ccurl_easy_setopt_off_t(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(length ?? -1))
            _ = ccurl_easy_setopt_read_function(easy, transferReadCallback)
            pointer(CURLOPT_READDATA, context)
            string(CURLOPT_CUSTOMREQUEST, method.rawValue)
            // Only an idempotent request may be resent by libcurl when a
            // reused connection turns out dead; a POST fails instead.
            if case .bytes = source, [.get, .head, .put, .delete, .options].contains(method) {
                _ = ccurl_easy_setopt_seek_function(easy, transferSeekCallback)
                pointer(CURLOPT_SEEKDATA, context)
            }
        } else if method == .head {
            long(CURLOPT_NOBODY, 1)
        } else if method == .get {
            long(CURLOPT_HTTPGET, 1)
        } else {
            string(CURLOPT_CUSTOMREQUEST, method.rawValue)
        }
    }

    /// The request's fields, plus empty `Expect:` and `Accept:` to stop
    /// libcurl adding its own unless the caller set them. Framing fields are
    /// libcurl's to write from the body. The fields were checked by
    /// `RequestValidation.check` before the transfer began.
    private func setHeaders(_ headers: HTTPHeaders) {
        var list: UnsafeMutablePointer<curl_slist>?
        var sawExpect = false, sawAccept = false
        var line: [UInt8] = []
        line.reserveCapacity(256)
        for index in 0..<headers.count {
            if headers.nameEquals(at: index, lowercase: "content-length")
                || headers.nameEquals(at: index, lowercase: "transfer-encoding") { continue }
            if headers.nameEquals(at: index, lowercase: "expect") { sawExpect = true }
            if headers.nameEquals(at: index, lowercase: "accept") { sawAccept = true }
            // "Name;" is libcurl's spelling of a field with an empty value.
            // Written into one reused buffer, from the field's bytes as they
            // came; libcurl copies each line.
            line.removeAll(keepingCapacity: true)
            headers.withField(at: index) { name, value in
                line.append(contentsOf: name)
                if value.isEmpty {
                    line.append(UInt8(ascii: ";"))
                } else {
                    line.append(UInt8(ascii: ":"))
                    line.append(UInt8(ascii: " "))
                    line.append(contentsOf: value)
                }
            }
            line.append(0)
            list = line.withUnsafeBytes { curl_slist_append(list, $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        }
        if !sawExpect { list = curl_slist_append(list, "Expect:") }
        if !sawAccept { list = curl_slist_append(list, "Accept:") }
        headerList = list
        _ = ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up, as libcurl's `long` options take them.
    var milliseconds: Int {
        Int(clamping: (nanoseconds + 999_999) / 1_000_000)
    }
}
