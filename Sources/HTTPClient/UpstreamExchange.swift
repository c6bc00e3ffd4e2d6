import HTTPCodec
import System

/// One streamed request on the client's own connections: what goes out,
/// where the answer goes, and who waits for its head. Loop-confined, like
/// the connection that carries it.
final class UpstreamExchange {
    /// Who waits for the head: a task, or a handler on the pool's loop
    /// (`HTTPClient.startOnLoop`). Whoever resumes it takes it out of
    /// `waiter` first, on the pool's loop, so it is resumed exactly once.
    enum Waiter {
        /// Unchecked: one per proxied request, and a checked one allocates.
        case task(UnsafeContinuation<Result<HTTPClientStreamingResponse, HTTPClientError>, Never>)
        /// Called on `loop` after the current event's handling, never
        /// from inside the pool or a connection while their state changes.
        case handler(EventLoop, HTTPClient.HeadHandler)

        func resume(returning result: Result<HTTPClientStreamingResponse, HTTPClientError>) {
            switch self {
            case .task(let continuation):
                continuation.resume(returning: result)
            case .handler(let loop, let handler):
                let delivery = HeadDelivery(handler, result)
                loop.execute { delivery.run() }
            }
        }
    }

    /// A head on its way to a handler, moved out as the handler gets it: a
    /// copy left in the queued closure kept the header buffer shared, and
    /// the relay's filtering in place then copied all of it.
    /// `@unchecked Sendable`: made and run on the pool's loop thread.
    private final class HeadDelivery: @unchecked Sendable {
        let handler: HTTPClient.HeadHandler
        var result: Result<HTTPClientStreamingResponse, HTTPClientError>?

        init(_ handler: @escaping HTTPClient.HeadHandler, _ result: Result<HTTPClientStreamingResponse, HTTPClientError>) {
            self.handler = handler
            self.result = result
        }

        func run() {
            guard let result = result.take() else { return }
            handler(result)
        }
    }

    let id: UInt64
    let target: PlainHTTPTarget
    /// The request head, followed by the whole body when it was given whole.
    let head: [UInt8]
    /// A body streamed from a source, with `chunked` framing when its
    /// length is unknown.
    let upload: UploadChannel?
    let chunked: Bool
    let headRequest: Bool
    let idleTimeout: UInt64
    let responseLimit: Int?
    /// Where a streamed body goes: made when the head arrives without the
    /// whole body (a body in hand with its head is handed over whole).
    var channel: ResponseBodyChannel?
    var waiter: Waiter?
    var pump: Task<Void, Never>?
    /// When bytes last moved either way (loop time).
    var lastProgress: UInt64
    /// Sent once more on a fresh connection after a reused one turned out closed.
    var retried = false

    init(id: UInt64, target: PlainHTTPTarget, request: HTTPClientRequest, streamedLength: Int??,
         upload: UploadChannel?, idleTimeout: UInt64, waiter: Waiter, now: UInt64) {
        self.id = id
        self.target = target
        self.upload = upload
        self.chunked = upload != nil && streamedLength == .some(nil)
        self.headRequest = request.method == .head
        self.replayable = upload == nil && Self.idempotent.contains(request.method)
        self.idleTimeout = idleTimeout
        self.responseLimit = request.maxResponseBytes
        self.waiter = waiter
        self.lastProgress = now
        self.head = Self.serialize(request, target: target, streamedLength: streamedLength)
    }

    /// Whether the request may be sent again when a pooled connection
    /// turns out closed before any answer: only an idempotent method (RFC
    /// 9110 §9.2.2; a POST may have been acted on even so) with a body
    /// that is not streamed.
    let replayable: Bool

    /// Whether a closed pooled connection may still cost this exchange
    /// nothing: replayable and not sent again already.
    var mayRetry: Bool { replayable && !retried }

    /// Stops pulling the body from its source: the exchange has ended.
    func stopUpload() {
        pump?.cancel()
        upload?.close()
    }

    /// Ends the exchange with `error`: whoever waits for the head gets it,
    /// else the body's reader does.
    func fail(_ error: HTTPClientError) {
        stopUpload()
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: .failure(error))
        }
        channel?.finish(.failure(error))
    }

    /// The request line, `Host`, the caller's fields (framing fields
    /// dropped: framing follows the body) and the body's framing field,
    /// then the whole body when there is one. `streamedLength`: nil when
    /// nothing is streamed; `.some(nil)` for a stream of unknown length.
    static func serialize(_ request: HTTPClientRequest, target: PlainHTTPTarget, streamedLength: Int??) -> [UInt8] {
        let method = request.method.rawValue
        let headers = request.headers
        let host = headers.firstIndex(named: "Host") == nil ? target.authority : nil
        let framing: (name: String, value: String)?
        switch streamedLength {
        case .some(.some(let length)): framing = ("Content-Length", String(length))
        case .some(.none): framing = ("Transfer-Encoding", "chunked")
        case .none:
            if let body = request.body {
                framing = ("Content-Length", String(body.count))
            } else if request.method == .post || request.method == .put || request.method == .patch {
                framing = ("Content-Length", "0")
            } else {
                framing = nil
            }
        }
        let body = streamedLength == nil ? request.body : nil
        // Sized first, then written in one piece (see ByteCursor).
        var size = method.utf8.count + 1 + target.path.utf8.count + target.suffix.utf8.count + httpVersion.utf8CodeUnitCount
            + 2 + (body?.count ?? 0)
        if let host { size += ByteCursor.fieldSize("Host", host) }
        for index in 0..<headers.count where !isFraming(headers, index) {
            size += headers.lineSize(at: index)
        }
        if let framing { size += ByteCursor.fieldSize(framing.name, framing.value) }
        return [UInt8](count: size) { cursor in
            cursor.write(method)
            cursor.write(0x20)
            cursor.write(target.path)
            cursor.write(target.suffix)
            cursor.write(httpVersion)
            if let host { cursor.writeField("Host", host) }
            for index in 0..<headers.count where !isFraming(headers, index) {
                cursor.writeField(of: headers, at: index)
            }
            if let framing { cursor.writeField(framing.name, framing.value) }
            cursor.writeCRLF()
            if let body { cursor.write(body) }
        }
    }

    private static let httpVersion: StaticString = " HTTP/1.1\r\n"

    private static let idempotent: [HTTPMethod] = [.get, .head, .put, .delete, .options, .trace]


    private static func isFraming(_ headers: HTTPHeaders, _ index: Int) -> Bool {
        headers.nameEquals(at: index, lowercase: "content-length")
            || headers.nameEquals(at: index, lowercase: "transfer-encoding")
    }
}
