import CCurl
import System

/// One libcurl multi handle, owned by one event loop and driven by it: its
/// sockets sit in the loop's epoll set (CURLMOPT_SOCKETFUNCTION), its
/// timeout is a loop timer (CURLMOPT_TIMERFUNCTION), and readiness is fed
/// back with `curl_multi_socket_action`. Finished transfers are collected
/// with `curl_multi_info_read` after each call. Connections are kept in the
/// multi's cache and reused by later transfers on this loop.
///
/// Loop-confined: every field and every libcurl call is touched only on
/// `loop`'s thread; other threads and `@Sendable` callbacks hold the multi
/// as a `LoopBound`.
final class CurlMulti {
    let loop: EventLoop
    let configuration: HTTPClientConfiguration
    let stats: HTTPClientStats
    let handle: UnsafeMutableRawPointer
    var transfers: [UInt64: Transfer] = [:]
    /// The sockets libcurl asked to watch; the one strong reference to
    /// each (libcurl holds an unretained pointer through curl_multi_assign).
    var sockets: [ObjectIdentifier: CurlSocket] = [:]
    private var idleEasyHandles: [UnsafeMutableRawPointer] = []
    /// When libcurl last asked to be called for its timeout.
    var timeoutDeadline: UInt64?
    var armedDeadline: UInt64?
    var armedGeneration: UInt64 = 0
    var runSoonQueued = false
    private(set) var closed = false

    init(loop: EventLoop, configuration: HTTPClientConfiguration, stats: HTTPClientStats) throws(HTTPClientError) {
        guard let handle = curl_multi_init() else { throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue)) }
        self.loop = loop
        self.configuration = configuration
        self.stats = stats
        self.handle = handle
        // Unretained: the multi handle never outlives this object (it is
        // cleaned up in `shutdown` or `deinit`, with the callbacks unset).
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_multi_setopt_socket_function(handle, curlSocketCallback)
        _ = ccurl_multi_setopt_pointer(handle, CURLMOPT_SOCKETDATA, context)
        _ = ccurl_multi_setopt_timer_function(handle, curlTimerCallback)
        _ = ccurl_multi_setopt_pointer(handle, CURLMOPT_TIMERDATA, context)
        _ = ccurl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, max(1, configuration.maxIdleConnections))
        if let limit = configuration.maxConnectionsPerHost {
            _ = ccurl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, limit))
        }
    }

    deinit {
        // Reached only without `shutdown`, when no socket is registered (each
        // registered socket's handler holds this object).
        guard !closed else { return }
        _ = ccurl_multi_setopt_socket_function(handle, nil)
        _ = ccurl_multi_setopt_timer_function(handle, nil)
        idleEasyHandles.forEach { curl_easy_cleanup($0) }
        curl_multi_cleanup(handle)
    }

    // MARK: Starting and ending transfers

    func startBuffered(id: UInt64, request: HTTPClientRequest,
                       waiter: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>) {
        guard !closed else { return waiter.resume(returning: .failure(.cancelled)) }
        guard let easy = takeEasyHandle() else { return waiter.resume(returning: .failure(Self.outOfMemory)) }
        let source: Transfer.Source = request.body.map { .bytes($0) } ?? .none
        let transfer = Transfer(id: id, easy: easy, multi: self, sink: .buffered(waiter), source: source)
        start(transfer, request, streamed: false)
    }

    func startStreaming(id: UInt64, request: HTTPClientRequest, body: HTTPClientRequestBody?,
                        waiter: CheckedContinuation<Result<HTTPClientStreamingResponse, HTTPClientError>, Never>) {
        guard !closed else { return waiter.resume(returning: .failure(.cancelled)) }
        guard let easy = takeEasyHandle() else { return waiter.resume(returning: .failure(Self.outOfMemory)) }
        let bound = LoopBound(self, loop: loop)
        let channel = ResponseBodyChannel(
            highWater: configuration.streamBufferBytes, stats: stats,
            onDrained: { bound.later { $0.transfers[id]?.resume(receive: true) } },
            onAbandon: { bound.later { $0.cancel(id: id) } })
        var source: Transfer.Source = request.body.map { .bytes($0) } ?? .none
        var upload: UploadChannel?
        if let body {
            let channel = UploadChannel(highWater: configuration.streamBufferBytes, stats: stats,
                                        onReadable: { bound.later { $0.transfers[id]?.resume(receive: false) } })
            source = .stream(channel, length: body.length)
            upload = channel
        }
        let transfer = Transfer(id: id, easy: easy, multi: self, sink: .streaming(waiter, channel), source: source)
        guard start(transfer, request, streamed: true) else { return }
        if let body, let upload { transfer.startPump(body, into: upload) }
        transfer.armWatchdog(idle: request.timeout ?? configuration.timeout)
    }

    private static let outOfMemory = HTTPClientError.other(code: Int(CURLE_OUT_OF_MEMORY.rawValue))

    @discardableResult
    private func start(_ transfer: Transfer, _ request: HTTPClientRequest, streamed: Bool) -> Bool {
        stats.requests.add(1, ordering: .relaxed)
        if let error = transfer.configure(request, configuration, streamed: streamed) {
            finish(transfer, .failure(error), attached: false)
            return false
        }
        transfers[transfer.id] = transfer
        stats.activeTransfers.add(1, ordering: .relaxed)
        let code = curl_multi_add_handle(handle, transfer.easy)
        guard code == CURLM_OK else {
            transfers[transfer.id] = nil
            stats.activeTransfers.subtract(1, ordering: .relaxed)
            finish(transfer, .failure(.other(code: Int(code.rawValue))), attached: false)
            return false
        }
        return true
    }

    /// Ends a running transfer early (task cancelled, reader gone).
    func cancel(id: UInt64) {
        loop.assertInLoop()
        guard let transfer = transfers[id] else { return }
        end(transfer, .failure(.cancelled))
    }

    /// Removes a running transfer from the multi and reports its outcome.
    func end(_ transfer: Transfer, _ outcome: Result<Void, HTTPClientError>) {
        transfers[transfer.id] = nil
        stats.activeTransfers.subtract(1, ordering: .relaxed)
        finish(transfer, outcome, attached: true)
    }

    private func finish(_ transfer: Transfer, _ outcome: Result<Void, HTTPClientError>, attached: Bool) {
        if attached { curl_multi_remove_handle(handle, transfer.easy) }
        if case .failure = outcome { stats.failures.add(1, ordering: .relaxed) }
        transfer.resolve(outcome)
        curl_slist_free_all(transfer.headerList)
        transfer.headerList = nil
        curl_easy_reset(transfer.easy)
        if idleEasyHandles.count < 64, !closed {
            idleEasyHandles.append(transfer.easy)
        } else {
            curl_easy_cleanup(transfer.easy)
        }
    }

    private func takeEasyHandle() -> UnsafeMutableRawPointer? {
        loop.assertInLoop()
        return idleEasyHandles.popLast() ?? curl_easy_init()
    }

    // MARK: Driving libcurl

    /// Tells libcurl about readiness (or its timeout, with
    /// CURL_SOCKET_TIMEOUT) and collects what finished.
    func socketAction(_ fd: Int32, _ mask: Int32) {
        loop.assertInLoop()
        guard !closed else { return }
        var running: Int32 = 0
        _ = curl_multi_socket_action(handle, fd, mask, &running)
        collectFinished()
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(handle, &queued) {
            guard message.pointee.msg == CURLMSG_DONE else { continue }
            let easy = message.pointee.easy_handle
            let code = message.pointee.data.result
            var privateData: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privateData)
            let id = UInt64(UInt(bitPattern: privateData))
            guard let transfer = transfers[id] else { continue }
            end(transfer, transfer.outcome(of: code))
        }
    }

    /// Ends every transfer with `.cancelled`, stops watching every socket
    /// and frees the multi handle (which closes the pooled connections).
    func shutdown() {
        loop.assertInLoop()
        guard !closed else { return }
        for transfer in Array(transfers.values) { end(transfer, .failure(.cancelled)) }
        closed = true
        // Out of epoll first: libcurl closes these descriptors in cleanup.
        for socket in sockets.values { socket.deregister() }
        curl_multi_cleanup(handle)
        sockets.removeAll()
        idleEasyHandles.forEach { curl_easy_cleanup($0) }
        idleEasyHandles.removeAll()
        armedGeneration += 1
    }
}
