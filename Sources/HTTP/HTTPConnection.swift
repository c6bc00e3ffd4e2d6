import Core
import System
import HTTPCodec

/// One accepted TCP connection: reads and parses requests, hands each to
/// a worker task on this loop (see `RequestWorkers`), and writes the
/// responses in order.
/// Owns its descriptor; touched only on its loop's thread.
final class HTTPConnection: EventLoopHandler {
    let fd: Int32
    let peer: SocketAddress?
    /// Strong: the owner drops the connection when it closes, which ends
    /// the cycle, and a strong reference costs less to retain than `unowned`.
    let owner: ServerLoopState
    var loop: EventLoop { owner.loop }
    var registration: Registration?
    var interest: EpollEvents = [.readable, .readHangup]
    private(set) var closed = false

    // The parser and the two buffers are `@exclusivity(unchecked)`: each
    // is changed in place by calls that never reach back into this
    // connection (parsing, appending, compacting, a write(2) from the
    // buffer), so the run-time exclusivity check, a dozen per request,
    // could never fire (see EventLoop).
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Received bytes; `input[inputStart...]` is not parsed yet.
    @exclusivity(unchecked) var input: [UInt8] = []
    var inputStart = 0
    /// Bytes queued to send; `output[outputStart...]` is not sent yet.
    @exclusivity(unchecked) var output: [UInt8] = []
    var outputStart = 0

    // The request being answered (one at a time; pipelined ones wait).
    var inFlight = false
    var bodyStream: RequestBodyStream?
    var bodyComplete = true
    var keepAlive = true
    var isHeadRequest = false
    var isHTTP10 = false
    var expectsContinue = false
    var continueSent = false
    var responseStarted = false
    var responseFinished = false
    var peerClosed = false
    var readPausedForBody = false
    var readPausedForPipeline = false
    var lingering = false
    /// Unchecked like the buffers: its waiters are taken out before they
    /// are resumed, and a resumption only queues the waiting task.
    @exclusivity(unchecked) var response = ResponseProgress()
    /// A worker is sending this connection's response (its body too): a
    /// request pipelined behind it goes to that worker next. Set by the
    /// worker only; an answer given at once has no worker to come back.
    var answering = false
    /// How many requests this connection has started: an answer promised
    /// `later` names its request by this number.
    private(set) var requestNumber: UInt64 = 0
    /// The request in flight was promised an answer `later` that has not
    /// come: only then is a later answer taken (one for a request that was
    /// answered now, or went to a worker, is dropped).
    private var laterPending = false
    /// `process` is running: a response answered at once completes inside
    /// it, and its loop moves on to the next pipelined request rather than
    /// a nested call (which a pipelined burst would nest once per request).
    private var processing = false

    // Deadlines on the monotonic clock; 0 means none.
    var headDeadline: UInt64 = 0
    var idleDeadline: UInt64 = 0
    var writeDeadline: UInt64 = 0
    var lingerDeadline: UInt64 = 0
    var lastBodyActivity: UInt64 = 0
    /// The body's minimum-rate deadline (see `BodyRateDeadline`).
    var bodyDeadline = BodyRateDeadline()

    /// The peer address this connection counts against the server's
    /// per-address cap; nil when it is not counted.
    var countedAddress: IPAddress?
    /// The address this connection was refused for (over the cap), while
    /// its refusal lingers; nil otherwise.
    var refusedAddress: IPAddress?
    /// Refused at accept, unread: closing waits for the peer's bytes to be
    /// discarded, so that a reset cannot destroy the refusal.
    var refusedUnread = false

    init(fd: Int32, peer: SocketAddress?, owner: ServerLoopState) {
        self.fd = fd
        self.peer = peer
        self.owner = owner
        parser = HTTPRequestParser(limits: owner.configuration.parserLimits)
    }

    func start() throws(SystemError) {
        registration = try loop.register(fd, for: interest, handler: self)
        headDeadline = loop.now &+ owner.spans.header
    }

    func handleEvents(_ events: EpollEvents) {
        if events.contains(.writable) { flush() }
        guard !closed else { return }
        if interest.contains(.readable) {
            if !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) { readAvailable() }
        } else if !events.isDisjoint(with: [.hangup, .error]) {
            // Not reading, and epoll cannot mask these: the peer is gone
            // both ways (or the socket failed), so nothing more can be sent.
            close()
        }
    }

    // MARK: Reading

    private func readAvailable() {
        var discarded = 0
        while !closed, interest.contains(.readable) {
            let result = owner.readBuffer.withUnsafeMutableBytes { Socket.read(fd, into: $0) }
            switch result {
            case .done(let count):
                if lingering {
                    // Discarding: a bounded amount per wake-up, so a peer
                    // that keeps sending cannot hold the loop.
                    discarded += count
                    if discarded >= 16 * owner.readBuffer.count { return }
                    continue
                }
                input.append(contentsOf: owner.readBuffer[0..<count])
                if !inFlight, headDeadline == 0 {
                    idleDeadline = 0
                    headDeadline = loop.now &+ owner.spans.header
                }
                if count < owner.readBuffer.count { process(); return }
                process()
            case .wouldBlock:
                return
            case .closed, .failed:
                peerFinishedSending()
                return
            }
        }
    }

    /// End of stream from the peer: answer what was fully received, drop
    /// what was not.
    private func peerFinishedSending() {
        if lingering || !inFlight || !bodyComplete {
            close()
            return
        }
        peerClosed = true
        keepAlive = false
        updateReading()
    }

    /// Parses as far as the current state allows: the head of the next
    /// request, or the body of the current one.
    func process() {
        guard !processing else { return }
        processing = true
        defer { processing = false }
        // A response that ends the connection (an answer given at once can
        // complete in here) ends the parsing too: nothing after it is run.
        while !closed, !lingering, inFlight || keepAlive, !(inFlight && bodyComplete),
              inputStart < input.count || (inFlight && !bodyComplete) {
            let parsed = input.withUnsafeBytes { raw in
                Result { () throws(HTTPParseError) in try parser.parse(UnsafeRawBufferPointer(rebasing: raw[inputStart...])) }
            }
            // Consumed, not copied: the head moves into the request.
            let base = inputStart
            let event: HTTPParserEvent
            switch consume parsed {
            case .success(let step):
                inputStart += step.consumed
                event = step.event
            case .failure(let error):
                refuse(error)
                return
            }
            switch consume event {
            case .needMore:
                compactInput()
                return
            case .head(let head):
                startRequest(head)
            case .body(let range):
                receiveBody(Array(input[(base + range.lowerBound)..<(base + range.upperBound)]))
            case .end:
                bodyComplete = true
                bodyDeadline.stop()
                bodyStream?.finish()
                bodyStream = nil
                if readPausedForBody {
                    // The body is all here; the next request may follow.
                    readPausedForBody = false
                    updateReading()
                }
            }
        }
        compactInput()
        if inFlight, bodyComplete, input.count - inputStart > owner.configuration.parserLimits.maxHeaderBytes {
            // Pipelined bytes pile up behind a slow response: stop reading.
            readPausedForPipeline = true
            updateReading()
        }
    }

    private func compactInput() {
        if inputStart == input.count {
            input.removeAll(keepingCapacity: input.capacity <= 64 * 1024)
            inputStart = 0
        } else if inputStart > 32 * 1024 {
            input.removeSubrange(0..<inputStart)
            inputStart = 0
        }
    }

    private func receiveBody(_ bytes: [UInt8]) {
        lastBodyActivity = loop.now
        bodyDeadline.received(bytes.count, minRate: owner.spans.bodyMinRate)
        guard let bodyStream, !bytes.isEmpty else { return }
        if !bodyStream.push(bytes), !readPausedForBody {
            readPausedForBody = true
            bodyDeadline.pause(now: lastBodyActivity)
            updateReading()
        }
    }

    private func startRequest(_ head: consuming HTTPRequestHead) {
        inFlight = true
        requestNumber &+= 1
        headDeadline = 0
        idleDeadline = 0
        keepAlive = head.keepAlive && !owner.draining
        isHeadRequest = head.method == .head
        isHTTP10 = head.version == .http1_0
        expectsContinue = head.expectsContinue
        continueSent = false
        responseStarted = false
        responseFinished = false
        response = ResponseProgress()
        lastBodyActivity = loop.now
        bodyDeadline.begin(grace: owner.spans.bodyGrace)
        owner.stats.requests.add(1, ordering: .relaxed)
        bodyComplete = false // the parser reports `.end` after the body, or next when there is none

        let body: HTTPRequestBody
        switch head.framing {
        case .none:
            let request = HTTPRequest(head: consume head, body: .empty, peer: peer)
            if let immediate = owner.immediate {
                switch immediate(request, HTTPLaterAnswer(connection: self, request: requestNumber)) {
                case .now(let answer):
                    // Nothing comes between the head and its `.end`.
                    bodyComplete = true
                    owner.stats.answeredWithoutTask.add(1, ordering: .relaxed)
                    answerAtOnce(answer)
                    return
                case .later:
                    bodyComplete = true
                    laterPending = true
                    owner.stats.answeredWithoutTask.add(1, ordering: .relaxed)
                    return
                case .declined:
                    break
                }
            }
            owner.workers.submit(request, from: self)
            return
        case .contentLength(let length):
            armBodyDeadline(clientWaits: expectsContinue)
            bodyStream = RequestBodyStream { [bound = LoopBound(self, loop: loop)] in bound.withValue { $0.bodyDemanded() } }
            body = HTTPRequestBody(stream: bodyStream, declaredLength: length)
        case .chunked:
            armBodyDeadline(clientWaits: expectsContinue)
            bodyStream = RequestBodyStream { [bound = LoopBound(self, loop: loop)] in bound.withValue { $0.bodyDemanded() } }
            body = HTTPRequestBody(stream: bodyStream, declaredLength: nil)
        }
        owner.workers.submit(HTTPRequest(head: consume head, body: body, peer: peer), from: self)
    }

    /// Sends an answer promised `later` for request `number`; dropped
    /// unless that request is the one in flight and still waits for it
    /// (not when the connection has closed, or it was answered).
    func answerLater(_ response: HTTPResponse, request number: UInt64) {
        loop.assertInLoop()
        guard number == requestNumber, laterPending, inFlight, !closed else { return }
        laterPending = false
        answerAtOnce(response)
    }

    /// Sends what the immediate responder answered. A streamed body still
    /// needs a task to produce it: it gets one of its own.
    private func answerAtOnce(_ response: HTTPResponse) {
        guard let producer = send(response) else { return }
        let connection = LoopBound(self, loop: loop)
        Task(executorPreference: loop) { await connection.valueInLoop.stream(producer) }
    }

    /// The handler wants body bytes: send `100 Continue` if the client
    /// waits for it, and resume reading if back-pressure had paused it.
    func bodyDemanded() {
        guard !closed else { return }
        lastBodyActivity = loop.now
        if expectsContinue, !continueSent, !responseStarted {
            continueSent = true
            output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            flush()
        }
        armBodyDeadline(clientWaits: false)
        if readPausedForBody {
            readPausedForBody = false
            bodyDeadline.resume(now: lastBodyActivity)
            updateReading()
            readAvailable()
        }
    }

    /// Reads, or stops reading, as the pause reasons say. Hang-up interest
    /// goes with it: a level-triggered EPOLLRDHUP that nothing reads would
    /// wake the loop again and again.
    func updateReading() {
        let paused = !lingering && (readPausedForBody || readPausedForPipeline || peerClosed)
        setInterest(paused ? interest.subtracting([.readable, .readHangup]) : interest.union([.readable, .readHangup]))
    }

    func setInterest(_ events: EpollEvents) {
        guard events != interest, let registration, !closed else { return }
        interest = events
        loop.modify(registration, fd: fd, for: events)
    }

    // MARK: Closing

    /// Closes the descriptor after taking it out of epoll; fails any reader
    /// or writer still waiting on this connection. A response still being
    /// written (a stream that failed, a write timeout, a forced shutdown)
    /// ends with a reset, so that the client can never take a cut body for
    /// a whole one (a body framed by the close would otherwise just end).
    func close() {
        guard !closed else { return }
        closed = true
        if responseStarted, !responseFinished { Socket.resetOnClose(fd) }
        if let registration { loop.deregister(registration, fd: fd) }
        registration = nil
        Socket.close(fd)
        bodyStream?.fail(.connectionClosed)
        bodyStream = nil
        response.failWaiters()
        owner.connectionClosed(self)
    }

    /// Sends what is queued, then half-closes and discards input for a
    /// moment before closing, so a client still sending does not get a
    /// reset that destroys the response in flight.
    func closeAfterFlush() {
        keepAlive = false
        if outputStart < output.count { return } // flush() comes back here
        guard !closed else { return }
        if peerClosed || (!refusedUnread && inputStart == input.count && bodyComplete) {
            close()
            return
        }
        lingering = true
        Socket.shutdownWrite(fd)
        lingerDeadline = loop.now &+ 2_000_000_000
        setInterest([.readable, .readHangup])
    }

    /// Shutdown began: close now if idle, else after this response.
    func drain() {
        keepAlive = false
        if !inFlight, !lingering { close() }
    }
}
