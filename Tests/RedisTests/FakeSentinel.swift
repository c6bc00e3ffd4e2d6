import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for one sentinel: it answers every command on a connection
/// with the master's address it is told (`SENTINEL get-master-addr-by-name`
/// is the only command the gateway sends a sentinel without a password).
/// Serves one connection at a time on a queue of its own (blocking calls,
/// never on the cooperative pool); it stops with the process.
final class FakeSentinel: Sendable {
    let port: UInt16
    private let answer: Mutex<UInt16>

    init?(answering master: UInt16) {
        answer = Mutex(master)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, size) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &size) == 0
            }
        }
        guard bound else {
            close(listener)
            return nil
        }
        port = UInt16(bigEndian: address.sin_port)
        DispatchQueue(label: "fake-sentinel").async { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                serve(client)
                close(client)
            }
        }
    }

    /// From now on, names the master on `port`.
    func answer(with port: UInt16) {
        answer.withLock { $0 = port }
    }

    private func serve(_ client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            let port = String(answer.withLock { $0 })
            let reply = Array("*2\r\n$9\r\n127.0.0.1\r\n$\(port.utf8.count)\r\n\(port)\r\n".utf8)
            guard reply.withUnsafeBytes({ send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == reply.count else { return }
        }
    }
}
