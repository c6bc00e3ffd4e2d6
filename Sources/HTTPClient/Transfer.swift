import CCurl
import HTTPCodec
import System

/// One request on one multi handle: its easy handle, what it sends, what
/// has arrived, and who waits for the result.
///
/// Loop-confined: created, called back by libcurl and finished only on its
/// multi's loop thread. libcurl reaches it through an unretained pointer
/// (CURLOPT_WRITEDATA and friends) that is valid because the multi's
/// `transfers` table holds the one strong reference from
/// `curl_multi_add_handle` until after `curl_multi_remove_handle`, after
/// which libcurl calls nothing of this transfer's.
final class Transfer {
    /// Who waits, and for what.
    enum Sink {
        case buffered(CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>)
        case streaming(CheckedContinuation<Result<HTTPClientStreamingResponse, HTTPClientError>, Never>?,
                       ResponseBodyChannel)
    }

    /// Where the request body comes from.
    enum Source {
        case none
        case bytes([UInt8])
        case stream(UploadChannel, length: Int?)
    }

    let id: UInt64
    let easy: UnsafeMutableRawPointer
    unowned let multi: CurlMulti
    private(set) var sink: Sink?
    let source: Source
    var sourceOffset = 0
    var headerList: UnsafeMutablePointer<curl_slist>?
    var head = ResponseHeadParser()
    var body: [UInt8] = []
    var responseLimit: Int?
    var receivedBytes = 0
    var tooLarge = false
    var sourceFailed = false
    var endOfBodyDelivered = false
    var pausedReceive = false
    var pausedSend = false
    /// When bytes last moved (loop time), for a stream's idle timeout.
    var lastProgress: UInt64
    private var pump: Task<Void, Never>?

    init(id: UInt64, easy: UnsafeMutableRawPointer, multi: CurlMulti, sink: Sink, source: Source) {
        self.id = id
        self.easy = easy
        self.multi = multi
        self.sink = sink
        self.source = source
        lastProgress = multi.loop.now
    }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: Called by libcurl (see Transfer+Callbacks.swift)

    /// A header line. Completing a stream's head hands it to the caller;
    /// a refused line aborts the transfer (anything but `line.count`).
    func receiveHeaderLine(_ line: UnsafeBufferPointer<UInt8>) -> Int {
        lastProgress = multi.loop.now
        switch head.consume(line) {
        case .more: return line.count
        case .refused: return 0
        case .finalHead: break
        }
        if case .streaming(let waiter?, let channel) = sink {
            sink = .streaming(nil, channel)
            let response = HTTPClientStreamingResponse(
                status: HTTPStatus(head.status), headers: head.headers,
                body: HTTPClientResponseBody(channel: channel))
            waiter.resume(returning: .success(response))
        }
        return line.count
    }

    /// Body bytes. Returning anything but `bytes.count` aborts the transfer.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastProgress = multi.loop.now
        if let responseLimit, receivedBytes + bytes.count > responseLimit {
            tooLarge = true
            return 0
        }
        switch sink {
        case .buffered?:
            body.append(contentsOf: bytes)
        case .streaming(_, let channel)?:
            guard channel.offer(bytes) else {
                // libcurl keeps these bytes and offers them again on resume.
                pausedReceive = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
        case nil:
            return 0
        }
        receivedBytes += bytes.count
        head.bodyArrived()
        return bytes.count
    }

    /// Fills libcurl's upload buffer from the request body.
    func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch source {
        case .none:
            endOfBodyDelivered = true
            return 0
        case .bytes(let bytes):
            let count = min(buffer.count, bytes.count - sourceOffset)
            if count == 0 { endOfBodyDelivered = true; return 0 }
            bytes.withUnsafeBytes { all in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[sourceOffset..<(sourceOffset + count)]))
            }
            sourceOffset += count
            return count
        case .stream(let channel, _):
            switch channel.read(into: buffer) {
            case .bytes(let count):
                lastProgress = multi.loop.now
                return count
            case .pause:
                pausedSend = true
                return Int(CURL_READFUNC_PAUSE)
            case .end:
                endOfBodyDelivered = true
                return 0
            case .failed:
                sourceFailed = true
                return Int(CURL_READFUNC_ABORT)
            }
        }
    }

    /// Rewinds a complete body so libcurl can resend it on a new connection.
    func seek(to offset: Int) -> Bool {
        guard case .bytes(let bytes) = source, offset >= 0, offset <= bytes.count else { return false }
        sourceOffset = offset
        endOfBodyDelivered = false
        return true
    }

    // MARK: Pausing

    /// Lifts this side's pause, keeping the other direction's.
    func resume(receive: Bool) {
        if receive { guard pausedReceive else { return }; pausedReceive = false }
        else { guard pausedSend else { return }; pausedSend = false }
        let mask = (pausedReceive ? CURLPAUSE_RECV : 0) | (pausedSend ? CURLPAUSE_SEND : 0)
        _ = curl_easy_pause(easy, mask)
    }

    // MARK: The end

    /// Starts pulling a streamed body from its source on this loop.
    func startPump(_ body: HTTPClientRequestBody, into channel: UploadChannel) {
        pump = channel.startPump(from: body, on: multi.loop)
    }

    /// What libcurl's result means for the caller.
    func outcome(of code: CURLcode) -> Result<Void, HTTPClientError> {
        if code == CURLE_OK { return .success(()) }
        if head.refused { return .failure(.invalidResponse) }
        if tooLarge { return .failure(.responseTooLarge) }
        if sourceFailed { return .failure(.requestBodyFailed) }
        if code == CURLE_OPERATION_TIMEDOUT { return .failure(.timedOut(requestSent: requestWasSent())) }
        // libcurl refuses a status line it cannot read as HTTP/1.x itself
        // (as HTTP/0.9, which is not allowed), before any line reaches
        // `head`. Once the request went out, that is the answer's fault,
        // not the URL's.
        if code == CURLE_UNSUPPORTED_PROTOCOL, requestWasSent() { return .failure(.invalidResponse) }
        return .failure(HTTPClientError(curlCode: code))
    }

    /// Whether the whole request reached the server's socket, judged
    /// conservatively (true when unsure): any response byte proves it; else
    /// the head must have gone out and every body byte been sent.
    func requestWasSent() -> Bool {
        if head.receivedAnything { return true }
        var requestSize = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &requestSize)
        guard requestSize > 0 else { return false }
        var uploaded: curl_off_t = 0
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        switch source {
        case .none: return true
        case .bytes(let bytes): return uploaded >= bytes.count
        case .stream(_, let length?): return uploaded >= length
        case .stream(_, nil): return endOfBodyDelivered
        }
    }

    /// Hands the result to whoever waits and stops the body pump. Called
    /// once, after the easy handle has left the multi.
    func resolve(_ outcome: Result<Void, HTTPClientError>) {
        pump?.cancel()
        if case .stream(let channel, _) = source { channel.close() }
        switch sink {
        case .buffered(let waiter)?:
            waiter.resume(returning: outcome.map {
                HTTPClientResponse(status: HTTPStatus(finalStatus), headers: head.headers, body: body)
            })
        case .streaming(let waiter, let channel)?:
            if let waiter {
                let channelOutcome = outcome
                waiter.resume(returning: outcome.map {
                    HTTPClientStreamingResponse(status: HTTPStatus(finalStatus), headers: head.headers,
                                                body: HTTPClientResponseBody(channel: channel))
                })
                channel.finish(channelOutcome)
            } else {
                channel.finish(outcome)
            }
        case nil:
            break
        }
        sink = nil
    }

    private var finalStatus: Int {
        if head.status != 0 { return head.status }
        var code = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return code
    }
}

