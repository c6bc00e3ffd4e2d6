import CCurl

// libcurl's per-transfer callbacks. Global functions: a @convention(c)
// callback cannot capture. The context is the transfer, passed unretained
// (see `Transfer`); libcurl calls these only on the loop thread, from
// inside curl_multi_socket_action or curl_easy_pause.

/// CURLOPT_WRITEFUNCTION: response body bytes.
func transferWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                           _ context: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// CURLOPT_HEADERFUNCTION: one response header line at a time.
func transferHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                            _ context: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let line = UnsafeRawBufferPointer(start: data, count: size * count).bindMemory(to: UInt8.self)
    return transfer.receiveHeaderLine(line)
}

/// CURLOPT_READFUNCTION: request body bytes.
func transferReadCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                          _ context: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

/// CURLOPT_SEEKFUNCTION: rewind a complete body for a resend.
func transferSeekCallback(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    guard origin == SEEK_SET, transfer.seek(to: offset) else { return CURL_SEEKFUNC_CANTSEEK }
    return CURL_SEEKFUNC_OK
}

/// CURLOPT_OPENSOCKETFUNCTION: libcurl's socket, opened close-on-exec in
/// the same call, so no child process started meanwhile inherits it.
func transferOpenSocketCallback(_ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
                                _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let address else { return CURL_SOCKET_BAD }
    let fd = socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    return fd >= 0 ? fd : CURL_SOCKET_BAD
}
