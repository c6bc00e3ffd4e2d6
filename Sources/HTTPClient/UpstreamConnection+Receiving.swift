import HTTPCodec
import System

/// Reading the answer: the head, then the body under back-pressure, until
/// its framing says it is complete or the server closes.
extension UpstreamConnection {
    func readAvailable() {
        let buffer = pool.readBuffer
        while state.exchange != nil, !state.machine.isReceivePaused {
            switch Socket.read(fd, into: buffer) {
            case .done(let count):
                received(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                // A short read drained the socket: epoll says when there is
                // more (out of epoll, the peer is gone: read to its end).
                if count < buffer.count, registration != nil { return }
            case .wouldBlock:
                // Out of epoll nothing would say when more comes; a socket
                // taken out for a failure should never get here.
                if registration == nil { return endOfStream(reset: true) }
                return
            case .closed:
                return endOfStream(reset: false)
            case .failed:
                return endOfStream(reset: true)
            }
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard let exchange = state.exchange else { return }
        state.machine.bytesReceived()
        exchange.lastProgress = pool.loop.now
        var leftover: Int
        if state.pending.isEmpty {
            let used = process(bytes)
            leftover = bytes.count - used
            if leftover > 0, self.state.exchange != nil, !state.machine.isResponseDone {
                state.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
                leftover = 0
            }
        } else {
            state.pending.append(contentsOf: bytes)
            leftover = processPending()
        }
        if state.machine.isResponseDone, self.state.exchange != nil { complete(extraBytes: leftover > 0) }
    }

    /// Processes `pending` from its start; returns how many bytes are left
    /// over past a finished response.
    private func processPending() -> Int {
        // Taken out first: a failure inside clears `pending`.
        let bytes = state.pending
        state.pending = []
        let used = bytes.withUnsafeBytes { process($0) }
        if state.machine.isResponseDone { return bytes.count - used }
        if state.exchange != nil, used < bytes.count { state.pending = Array(bytes[used...]) }
        return 0
    }

    /// Parses and delivers what `bytes` holds; returns how many were used.
    /// Stops when the reader is behind, the response ends, or the exchange
    /// failed.
    private func process(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while let exchange = state.exchange, !state.machine.isResponseDone {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            guard let response = state.response else {
                guard let end = UpstreamResponseParser.headEnd(rest) else {
                    if rest.count > UpstreamResponseParser.maxHeadBytes { fail(.invalidResponse) }
                    return offset
                }
                let head: UpstreamResponseHead
                do {
                    head = try UpstreamResponseParser.parse(UnsafeRawBufferPointer(rebasing: rest[..<end]),
                                                            headRequest: exchange.headRequest)
                } catch {
                    fail(error)
                    return offset
                }
                offset += end
                if head.status < 200 {
                    // 100 Continue and 103 Early Hints precede the answer;
                    // nothing here asked to switch protocols.
                    if head.status == 101 { fail(.invalidResponse); return offset }
                    continue
                }
                // A sized body already in hand (a small answer usually
                // comes in one read with its head) goes over whole: no
                // channel, no waiting reader to wake. So does no body at
                // all (HEAD, 204, 304).
                var whole: [UInt8]?
                switch head.framing {
                case .none:
                    whole = []
                case .length(let length) where length <= bytes.count - offset && length <= exchange.responseLimit ?? .max:
                    whole = Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
                    offset += length
                    receivedBytes += length
                default:
                    whole = nil
                }
                deliverHead(head, exchange, whole: whole)
                continue
            }
            switch response.framing {
            case .none:
                state.machine.responseDone()
            case .length:
                let count = min(remaining, rest.count)
                if count == 0 { return offset }
                guard offer(UnsafeRawBufferPointer(rebasing: rest[..<count]), exchange) else { return offset }
                offset += count
                remaining -= count
                if remaining == 0 { state.machine.responseDone() }
            case .untilClose:
                if rest.isEmpty { return offset }
                guard offer(rest, exchange) else { return offset }
                offset += rest.count
            case .chunked:
                let step: ChunkedDecoder.Step
                do { step = try state.decoder.step(rest) } catch { fail(error); return offset }
                switch step {
                case .more:
                    return offset
                case .framing(let count):
                    offset += count
                case .data(let count):
                    guard offer(UnsafeRawBufferPointer(rebasing: rest[..<count]), exchange) else { return offset }
                    state.decoder.delivered(count)
                    offset += count
                case .end(let count):
                    offset += count
                    state.machine.responseDone()
                }
            }
        }
        return offset
    }

    /// Passes the head on with its body: `whole` when it has all arrived
    /// (the response is then done), else a channel the body streams into.
    private func deliverHead(_ head: UpstreamResponseHead, _ exchange: UpstreamExchange, whole: [UInt8]?) {
        state.response = UpstreamResponseHead.Frame(framing: head.framing, keepAlive: head.keepAlive)
        let body: HTTPClientResponseBody
        if let whole {
            remaining = 0
            state.machine.responseDone()
            body = HTTPClientResponseBody(whole: whole)
        } else {
            // A body without framing, or sized at 0, has gone whole.
            if case .length(let length) = head.framing { remaining = length }
            let channel = pool.makeChannel(id: exchange.id)
            exchange.channel = channel
            body = HTTPClientResponseBody(channel: channel)
        }
        guard let waiter = exchange.waiter else { return }
        exchange.waiter = nil
        waiter.resume(returning: .success(HTTPClientStreamingResponse(
            status: HTTPStatus(head.status), headers: head.headers, body: body)))
    }

    /// Hands body bytes to the reader; false when it is behind (reading
    /// pauses until it catches up) or the exchange failed.
    private func offer(_ bytes: UnsafeRawBufferPointer, _ exchange: UpstreamExchange) -> Bool {
        if let limit = exchange.responseLimit, receivedBytes + bytes.count > limit {
            fail(.responseTooLarge)
            return false
        }
        // Made with the head: bytes are offered only after it.
        guard exchange.channel!.offer(bytes) else {
            state.machine.receivePaused()
            updateInterest()
            return false
        }
        receivedBytes += bytes.count
        return true
    }

    /// The reader has drained enough: what waited is delivered, then reading goes on.
    func resumeReceive() {
        guard state.exchange != nil, state.machine.receiveResumed() else { return }
        if !state.pending.isEmpty {
            let leftover = processPending()
            if state.machine.isResponseDone, state.exchange != nil { return complete(extraBytes: leftover > 0) }
        }
        if registration == nil { return readAvailable() }
        updateInterest()
    }

    /// The server closed its side, or reset the connection. A reset never
    /// ends a body that runs until the close: what came before it may be
    /// cut anywhere. Neither does a close after a send failed: the kernel
    /// hands a reset to whichever call comes first, and a send that took it
    /// leaves the next read to find a plain end of stream.
    private func endOfStream(reset: Bool) {
        guard let exchange = state.exchange else { return close() }
        switch state.machine.endOfStream(reset: reset, untilClose: state.response?.framing == .untilClose, mayRetry: exchange.mayRetry) {
        case .complete:
            complete(extraBytes: false)
        case .retry:
            // A pooled connection the server had closed before it could
            // read this request: send it once more on a new connection.
            detach()
            exchange.retried = true
            pool.retry(exchange, replacing: self)
        case .fail:
            fail(.connectionClosed)
        }
    }
}
