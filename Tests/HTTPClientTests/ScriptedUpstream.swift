import Core
import Dispatch
import System
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A one-connection upstream with blocking I/O on a Dispatch thread, for
/// what the real server does not do: canned responses the server never
/// sends (1xx heads, trailers, folded fields), or a body sink that holds
/// no more than one read buffer, so a memory figure measures the client
/// alone.
final class ScriptedUpstream: Sendable {
    enum Behaviour: Sendable {
        /// Reads the request head, sends these bytes, closes.
        case answer(String)
        /// Reads a Content-Length body, answers "<length> <byte sum>".
        case countBody
    }

    let port: UInt16
    private let listener: Int32

    convenience init(answer: String) throws { try self.init(.answer(answer)) }

    init(_ behaviour: Behaviour) throws {
        listener = try Socket.listen(on: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0), reusePort: false)
        port = try Socket.localAddress(listener).port
        let listener = self.listener
        // A serial queue of its own: the loop blocks in accept(2), which on
        // the global queue would take a thread from the cooperative pool.
        DispatchQueue(label: "scripted-upstream").async { Self.serve(listener, behaviour) }
    }

    deinit { Glibc.close(listener) }

    private static func serve(_ listener: Int32, _ behaviour: Behaviour) {
        // The listener is non-blocking: poll for the connection first.
        var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 10_000) == 1, let (fd, _) = try? Socket.accept(listener) else { return }
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var input: [UInt8] = []
        func fill() -> Bool {
            var cfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&cfd, 1, 10_000) == 1 else { return false }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return false }
            input.append(contentsOf: buffer[0..<count])
            return true
        }
        var headEnd: Int?
        while headEnd == nil {
            guard fill() else { return }
            headEnd = input.firstRange(of: [13, 10, 13, 10])?.upperBound
        }
        let answer: String
        switch behaviour {
        case .answer(let text):
            answer = text
        case .countBody:
            let head = String(decoding: input[..<headEnd!], as: UTF8.self).lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int(String($0.dropFirst(15)).trimmedBlanks()) } ?? 0
            var total = 0, sum: UInt64 = 0
            input.removeFirst(headEnd!)
            while true {
                for byte in input { sum &+= UInt64(byte) }
                total += input.count
                input.removeAll(keepingCapacity: true)
                if total >= length || !fill() { break }
            }
            let body = "\(total) \(sum)"
            answer = "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        let bytes = Array(answer.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }
}
