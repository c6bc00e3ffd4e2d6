import Core
import Dispatch
import Synchronization
import System
#if canImport(Glibc)
import Glibc
#endif

/// A loopback upstream with blocking I/O on threads of its own, one per
/// accepted connection. It answers requests from a script in the order
/// they arrive, over whichever connection, counts the connections it
/// accepted and keeps every request it read. It stops (and closes its
/// sockets) once released.
public final class RawUpstream: Sendable {
    /// What the upstream does with one request.
    public struct Reply: Sendable {
        /// What becomes of the connection after the reply: `reset` closes
        /// it abortively (RST) a tenth of a second later.
        public enum Then: Sendable { case keepOpen, close, stall, reset }
        /// Written in order, a millisecond apart.
        public var writes: [[UInt8]]
        public var then: Then
        /// Whether the request's body is read before answering.
        public var readsBody = true
        /// How long to wait, once the request is read, before replying.
        public var delayMilliseconds = 0

        public init(writes: [[UInt8]], then: Then, readsBody: Bool = true, delayMilliseconds: Int = 0) {
            self.writes = writes
            self.then = then
            self.readsBody = readsBody
            self.delayMilliseconds = delayMilliseconds
        }

        /// Sends `text` at once.
        public static func answer(_ text: String, then: Then = .keepOpen) -> Reply {
            Reply(writes: [Array(text.utf8)], then: then)
        }

        /// Sends `text` in pieces of `size` bytes.
        public static func trickle(_ text: String, by size: Int) -> Reply {
            let bytes = Array(text.utf8)
            return Reply(writes: stride(from: 0, to: bytes.count, by: size).map {
                Array(bytes[$0..<min($0 + size, bytes.count)])
            }, then: .keepOpen)
        }

        /// Closes the connection unanswered, the request's body unread.
        public static let hangUp = Reply(writes: [], then: .close, readsBody: false)

        /// Closes the connection unanswered `milliseconds` after reading the request's head.
        public static func hangUp(after milliseconds: Int) -> Reply {
            Reply(writes: [], then: .close, readsBody: false, delayMilliseconds: milliseconds)
        }

        /// Sends `text` as soon as the head is read, leaving the body unread.
        public static func answerEarly(_ text: String) -> Reply {
            Reply(writes: [Array(text.utf8)], then: .keepOpen, readsBody: false)
        }
    }

    /// A request as the upstream read it.
    public struct Received: Sendable {
        /// Which accepted connection carried it, from 1.
        public var connection: Int
        /// The request line and fields, CRLF-separated.
        public var head: String
        /// The body, its chunked framing removed.
        public var body: [UInt8] = []

        /// `METHOD target HTTP/1.1`.
        public var requestLine: String { String(head.split(separator: "\r\n").first ?? "") }

        /// The values of every field called `name`, in order.
        public func values(_ name: String) -> [String] {
            head.split(separator: "\r\n").dropFirst().compactMap { line in
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { return nil }
                return String(line[line.index(after: colon)...]).trimmedBlanks()
            }
        }
    }

    /// What the serving threads share with the test.
    private final class State: Sendable {
        let script: Mutex<[Reply]>
        let accepted = Atomic<Int>(0)
        let received = Mutex<[Received]>([])
        let stopped = Atomic<Bool>(false)
        /// Connections open now, and the most ever open at once.
        let open = Mutex((now: 0, peak: 0))

        init(script: [Reply]) { self.script = Mutex(script) }
    }

    public let port: UInt16
    private let state: State

    /// Connections accepted so far.
    public var accepted: Int { state.accepted.load(ordering: .acquiring) }
    /// The most connections that were open at once.
    public var peakOpen: Int { state.open.withLock { $0.peak } }
    /// Requests read so far, in order.
    public var received: [Received] { state.received.withLock { $0 } }

    /// Listens on 127.0.0.1; once `script` is used up, requests are hung up on.
    public convenience init(_ script: [Reply]) throws {
        try self.init { _ in script }
    }

    /// Listens on 127.0.0.1 and answers from the script `script` makes
    /// for the port it listens on (replies that name the upstream's URL).
    public init(_ script: (_ port: UInt16) -> [Reply]) throws {
        let listener = try Socket.listen(on: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0), reusePort: false)
        do {
            port = try Socket.localAddress(listener).port
        } catch {
            Glibc.close(listener)
            throw error
        }
        let state = State(script: script(port))
        self.state = state
        Self.onOwnThread { Self.acceptLoop(listener, state) }
    }

    deinit { state.stopped.store(true, ordering: .releasing) }

    /// An `http` URL of `path` on this upstream.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Runs blocking `work` on a thread of its own: a queue made here
    /// gets one, while the global queues share a few threads with Swift
    /// concurrency, which blocked loops would starve.
    private static func onOwnThread(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "raw-upstream").async(execute: work)
    }

    /// Accepts connections until stopped, each served on its own thread;
    /// the listener is closed here, by the only thread using it.
    private static func acceptLoop(_ listener: Int32, _ state: State) {
        defer { Glibc.close(listener) }
        while !state.stopped.load(ordering: .acquiring) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) == 1, let (fd, _) = try? Socket.accept(listener) else { continue }
            let number = state.accepted.add(1, ordering: .releasing).newValue
            onOwnThread { serve(fd, connection: number, state) }
        }
    }

    /// Reads requests and answers them from the script until the script
    /// says otherwise or the client leaves. A request is recorded before
    /// its answer goes out, so a test that has the answer sees it.
    private static func serve(_ fd: Int32, connection: Int, _ state: State) {
        state.open.withLock { open in
            open.now += 1
            open.peak = max(open.peak, open.now)
        }
        // Counted out before the close, which the client may act on at once.
        defer {
            state.open.withLock { $0.now -= 1 }
            Glibc.close(fd)
        }
        Socket.setNoDelay(fd)
        // Room for a reply of a few hundred KiB in one write, so that what
        // a test sends in one piece reaches the client as one.
        var sendBuffer: Int32 = 2 << 20
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
        var reader = Reader(fd: fd, state: state)
        while let head = reader.head() {
            let reply = state.script.withLock { $0.isEmpty ? Reply.hangUp : $0.removeFirst() }
            var request = Received(connection: connection, head: head)
            if reply.delayMilliseconds > 0 { usleep(UInt32(reply.delayMilliseconds * 1000)) }
            if reply.readsBody {
                guard let body = reader.body(of: request) else { return }
                request.body = body
            }
            state.received.withLock { $0.append(request) }
            for (index, piece) in reply.writes.enumerated() {
                if index > 0 { usleep(1000) }
                guard send(piece, to: fd) else { return }
            }
            switch reply.then {
            case .keepOpen: continue
            case .close: return
            case .stall: while reader.fill() { reader.input.removeAll() }
            case .reset:
                usleep(100_000)
                var abort = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
            }
            return
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    private static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            switch bytes[offset...].withUnsafeBytes({ Socket.write(fd, from: $0) }) {
            case .done(let count):
                offset += count
            case .wouldBlock:
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 50)
            case .closed, .failed:
                return false
            }
        }
        return true
    }

    /// Blocking reads from one connection, by head, line and count.
    private struct Reader {
        let fd: Int32
        let state: State
        var input: [UInt8] = []

        /// Reads more into `input`; false at the end of the stream, when
        /// stopped, or after 30 quiet seconds. Not fewer: at the start of the
        /// parallel pass a test can wait that long for a thread, and a
        /// connection closed under it meanwhile looked like a client that
        /// failed to reuse it.
        mutating func fill() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            for _ in 0..<600 where !state.stopped.load(ordering: .acquiring) {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 50) == 1 else { continue }
                switch buffer.withUnsafeMutableBytes({ Socket.read(fd, into: $0) }) {
                case .done(let count):
                    input += buffer[..<count]
                    return true
                case .wouldBlock:
                    continue
                case .closed, .failed:
                    return false
                }
            }
            return false
        }

        /// The next request head without its blank line; nil when the
        /// connection ended first.
        mutating func head() -> String? {
            while true {
                if let end = input.firstRange(of: [13, 10, 13, 10]) {
                    defer { input.removeFirst(end.upperBound) }
                    return String(decoding: input[..<end.lowerBound], as: UTF8.self)
                }
                guard fill() else { return nil }
            }
        }

        /// The body `request`'s head announces, chunked or by length.
        mutating func body(of request: Received) -> [UInt8]? {
            if request.values("Transfer-Encoding").contains(where: { $0.lowercased() == "chunked" }) { return chunkedBody() }
            return take(Int(request.values("Content-Length").first ?? "0") ?? 0)
        }

        /// A chunked body without its framing; trailers are skipped.
        private mutating func chunkedBody() -> [UInt8]? {
            var body: [UInt8] = []
            while let sizeLine = line(), let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16) {
                if size == 0 {
                    while let trailer = line(), !trailer.isEmpty {}
                    return body
                }
                guard let data = take(size), line() == "" else { return nil }
                body += data
            }
            return nil
        }

        /// The next `count` bytes; nil when the connection ended first.
        private mutating func take(_ count: Int) -> [UInt8]? {
            while input.count < count { guard fill() else { return nil } }
            defer { input.removeFirst(count) }
            return Array(input[..<count])
        }

        /// The next CRLF-terminated line, without its CRLF.
        private mutating func line() -> String? {
            while true {
                if let end = input.firstRange(of: [13, 10]) {
                    defer { input.removeFirst(end.upperBound) }
                    return String(decoding: input[..<end.lowerBound], as: UTF8.self)
                }
                guard fill() else { return nil }
            }
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (a field value's blanks).
    public func trimmedBlanks() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
