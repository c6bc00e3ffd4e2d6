import Core
import Dispatch
import System
#if canImport(Glibc)
import Glibc
#endif

/// A one-connection upstream that answers with canned bytes, for responses
/// the real server never sends (1xx heads, trailers, folded fields). The
/// blocking accept/read/write run on a Dispatch thread.
final class ScriptedUpstream: Sendable {
    let port: UInt16
    private let listener: Int32

    init(answer: String) throws {
        listener = try Socket.listen(on: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0), reusePort: false)
        port = try Socket.localAddress(listener).port
        let listener = self.listener
        // The listener is non-blocking: poll for the connection first.
        DispatchQueue.global().async {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 5000) == 1, let (fd, _) = try? Socket.accept(listener) else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            var cfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while !request.ends(with: [13, 10, 13, 10]), poll(&cfd, 1, 5000) == 1 {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                request.append(contentsOf: buffer[0..<count])
            }
            let bytes = Array(answer.utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            Glibc.shutdown(fd, Int32(SHUT_WR))
            _ = poll(&cfd, 1, 1000)
            Glibc.close(fd)
        }
    }

    deinit { Glibc.close(listener) }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
