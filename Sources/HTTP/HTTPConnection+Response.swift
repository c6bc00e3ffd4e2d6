import System
import HTTPCodec

/// The state of the response being written: how its body is framed, and
/// the streamed-body writers waiting for the socket to drain.
struct ResponseProgress {
    var chunked = false
    var declaredLength: Int?
    var sentBodyBytes = 0
    var waiters: [CheckedContinuation<Void, any Error>] = []

    mutating func failWaiters() {
        let pending = waiters
        waiters.removeAll()
        for waiter in pending { waiter.resume(throwing: HTTPWriteError()) }
    }

    mutating func resumeWaiters() {
        let pending = waiters
        waiters.removeAll()
        for waiter in pending { waiter.resume() }
    }
}

extension HTTPConnection {
    static let writeHighWater = 256 * 1024

    /// Produces a streamed body in the calling task, then ends it.
    func stream(_ producer: HTTPBodyProducer) async {
        do {
            try await producer(ConnectionBodyWriter(connection: LoopBound(self, loop: loop)))
            endStreamedBody()
        } catch {
            close()
        }
    }

    /// Starts sending the handler's response. Returns the body's producer
    /// when the body is streamed: the caller runs it next (`stream`), so a
    /// streamed response costs no second task, and any other response is
    /// sent without an `await` (each costs an executor switch). A second
    /// answer to the same request (the server already refused it, or the
    /// connection is gone) is dropped.
    func send(_ response: HTTPResponse) -> HTTPBodyProducer? {
        // The handler may answer before the body is in: it cannot be
        // skipped safely, so this connection then ends after the response.
        guard state.machine.responseStarts() else { return nil }
        let isHeadRequest = state.machine.isHeadRequest
        let mayHaveBody = response.status.allowsBody
        var producer: HTTPBodyProducer?
        switch response.body {
        case .empty:
            writeHead(response, length: mayHaveBody ? 0 : nil, chunked: false)
            finishBody()
        case .bytes(let bytes):
            writeHead(response, length: mayHaveBody ? bytes.count : nil, chunked: false)
            if mayHaveBody, !isHeadRequest { state.output.append(contentsOf: bytes) }
            finishBody()
        case .stream(let length, let bodyProducer):
            // Chunked whenever HTTP/1.1, closing or not: its last chunk is
            // what tells a whole body from a cut one. HTTP/1.0 has no
            // chunked coding (RFC 9112 §6.1): close-delimited, and a failure
            // then ends the connection with a reset (`close`).
            let chunked = length == nil && mayHaveBody && !state.machine.isHTTP10
            if length == nil, !chunked { state.machine.closeDelimited() }
            writeHead(response, length: mayHaveBody ? length : nil, chunked: chunked)
            if isHeadRequest || !mayHaveBody {
                finishBody()
            } else {
                self.state.response.chunked = chunked
                self.state.response.declaredLength = length
                producer = bodyProducer
            }
        }
        flush()
        return closed ? nil : producer // a peer already gone gets no body
    }

    private func writeHead(_ response: HTTPResponse, length: Int?, chunked: Bool) {
        ResponseHead.write(status: response.status, headers: response.headers, date: owner.dateCache.current(),
                           contentLength: length, chunked: chunked, keepAlive: state.machine.keepAlive,
                           announceKeepAlive: state.machine.isHTTP10, into: &state.output)
    }

    /// Queues one piece of a streamed body; suspends the writer while too
    /// much is queued.
    func writeBodyPiece(_ bytes: [UInt8], continuation: CheckedContinuation<Void, any Error>) {
        guard state.machine.isStreaming else {
            continuation.resume(throwing: HTTPWriteError())
            return
        }
        state.response.sentBodyBytes += bytes.count
        if let declared = state.response.declaredLength, state.response.sentBodyBytes > declared {
            continuation.resume(throwing: HTTPWriteError())
            close()
            return
        }
        if state.response.chunked { state.output.append(contentsOf: Array(String(bytes.count, radix: 16).utf8) + [0x0D, 0x0A]) }
        state.output.append(contentsOf: bytes)
        if state.response.chunked { state.output.append(contentsOf: [0x0D, 0x0A]) }
        flush()
        if closed {
            continuation.resume(throwing: HTTPWriteError())
        } else if state.output.count - outputStart > Self.writeHighWater {
            state.response.waiters.append(continuation)
        } else {
            continuation.resume()
        }
    }

    func endStreamedBody() {
        guard state.machine.isStreaming else { return }
        if let declared = state.response.declaredLength, state.response.sentBodyBytes != declared {
            close() // a short body must not look complete, and is reset
            return
        }
        if state.response.chunked { state.output.append(contentsOf: Array("0\r\n\r\n".utf8)) }
        finishBody()
        flush()
    }

    private func finishBody() {
        state.machine.responseFinished()
    }

    /// Writes what is queued; on completion of a response, moves on to the
    /// next request or closes.
    func flush() {
        guard !closed else { return }
        while outputStart < state.output.count {
            let result = state.output.withUnsafeBytes { Socket.write(fd, from: UnsafeRawBufferPointer(rebasing: $0[outputStart...])) }
            switch result {
            case .done(let count):
                outputStart += count
                state.machine.wrote(now: loop.now)
            case .wouldBlock:
                state.machine.writeBlocked(now: loop.now)
                setInterest(interest.union(.writable))
                return
            case .closed, .failed:
                close()
                return
            }
        }
        state.output.removeAll(keepingCapacity: state.output.capacity <= 256 * 1024)
        outputStart = 0
        let drained = state.machine.outputDrained()
        setInterest(interest.subtracting(.writable))
        state.response.resumeWaiters()
        switch drained {
        case .nothing: break
        case .completeResponse: completeResponse()
        case .finish: closeAfterFlush()
        }
    }

    private func completeResponse() {
        switch state.machine.responseCompleted(draining: owner.draining, now: loop.now) {
        case .finish:
            closeAfterFlush()
        case .next(let resumeReading):
            if resumeReading { updateReading() }
            process()
            // Part of a pipelined head is waiting: the header timeout runs.
            if inputStart < state.input.count { state.machine.partialHeadWaits(now: loop.now) }
        }
    }

    /// The parser refused the request: answer its status and close.
    func refuse(_ error: HTTPParseError) {
        owner.stats.rejectedRequests.add(1, ordering: .relaxed)
        bodyStream?.fail(.connectionClosed)
        bodyStream = nil
        if state.machine.bodyCut() { close() } else { answerAndClose(error.status) }
    }

    /// Refused at accept (its address holds too many connections): 429
    /// with `Retry-After`, written before anything is read, then a
    /// lingering close that discards what the client sends meanwhile.
    func refuseOverAddressCap() {
        state.machine.refusedAtAccept()
        answerAndClose(.tooManyRequests, headers: ["Retry-After": "1"])
    }

    /// Writes a small JSON error of the server's own and ends the connection.
    func answerAndClose(_ status: HTTPStatus, headers extra: HTTPHeaders = HTTPHeaders()) {
        state.machine.serverAnswers()
        let code = status.reasonPhrase.lowercased().replacing(" ", with: "_")
        let body = Array("{\"error\":\"\(code)\",\"error_description\":\"\(status.reasonPhrase).\"}".utf8)
        var headers = extra
        headers.add("Content-Type", "application/json")
        writeHead(HTTPResponse(status: status, headers: headers), length: body.count, chunked: false)
        state.output.append(contentsOf: body)
        flush()
    }
}

/// Hands streamed body pieces to the connection on its loop.
struct ConnectionBodyWriter: HTTPBodyWriter {
    let connection: LoopBound<HTTPConnection>

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connection.withValue { $0.writeBodyPiece(bytes, continuation: continuation) }
        }
    }
}
