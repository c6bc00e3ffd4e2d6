import Dispatch
import Foundation
import System
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client for tests, run on Dispatch threads (never on the
/// cooperative pool): sends raw bytes and reads raw answers, so tests see
/// exactly what went over the wire.
public final class RawClient: @unchecked Sendable {
    // @unchecked: used by one test at a time; every call is awaited before the next.
    public let fd: Int32

    public init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 5) throws {
        let isV6 = host.contains(":")
        fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if isV6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &addr.sin6_addr)
            result = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &addr.sin_addr)
            result = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard result == 0 else {
            // deinit still runs for a fully initialised instance and closes fd.
            throw SystemError("connect", errno: errno)
        }
    }

    /// A client of the Unix-domain stream socket at `socketPath`.
    public init(socketPath: String, timeout: Double = 5) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
            raw[min(bytes.count, raw.count - 1)] = 0
        }
        let result = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw SystemError("connect", errno: errno) }
    }

    deinit { Glibc.close(fd) }

    /// Sets how long a read or a send may wait, in seconds.
    public func setTimeout(_ timeout: Double) {
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Every read and send goes through `TestSupport.blocking`: a serial
    /// queue of its own, on libdispatch's overcommitting pool. A concurrent
    /// queue would park its blocked reads on the pool Swift's cooperative
    /// executor runs on (as wide as the cores), and a few tests waiting for
    /// answers would then stall the very gateways that should answer them.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await TestSupport.blocking(body)
    }

    public func send(_ text: String) async { await send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) async {
        await blocking { [fd] in
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    public func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Reads until the peer closes (or the timeout); everything received.
    public func readToEnd() async -> [UInt8] {
        await blocking { [fd] in
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                all.append(contentsOf: buffer[0..<n])
            }
            return all
        }
    }

    /// Reads until the peer ends the connection; everything received, and
    /// whether it ended with a reset rather than a close.
    public func readToEndOrReset() async -> (bytes: [UInt8], reset: Bool) {
        await blocking { [fd] in
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    all.append(contentsOf: buffer[0..<n])
                    continue
                }
                return (all, n < 0 && errno == ECONNRESET)
            }
        }
    }

    /// Reads exactly `count` complete responses (Content-Length or chunked
    /// framed), or as many as arrive before close or timeout.
    public func readResponses(_ count: Int) async -> [RawResponse] {
        await blocking { [fd] in
            var data: [UInt8] = []
            var responses: [RawResponse] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while responses.count < count {
                if let (response, used) = RawResponse.parse(data) {
                    responses.append(response)
                    data.removeFirst(used)
                    continue
                }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            return responses
        }
    }

    /// Whether the connection is still open at this moment (nothing read:
    /// bytes waiting, or none yet, without an end of stream or a reset).
    public var isOpenNow: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    }

    /// Whether the server has closed the connection (reads end of stream
    /// within the timeout).
    public func isClosedByPeer() async -> Bool {
        await blocking { [fd] in
            var byte: UInt8 = 0
            while true {
                let n = recv(fd, &byte, 1, 0)
                if n == 0 { return true }
                if n < 0 { return errno == ECONNRESET }
            }
        }
    }
}

/// A response as it came off the wire.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Parses one response from the front of `data`; nil until complete.
    public static func parse(_ data: [UInt8]) -> (RawResponse, Int)? {
        let crlf2: [UInt8] = [13, 10, 13, 10]
        guard data.count >= 4, let end = (0...(data.count - 4)).first(where: { Array(data[$0..<$0 + 4]) == crlf2 }) else { return nil }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        var offset = end + 4
        if status < 200 { return (response, offset) }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            guard data.count >= offset + length else { return nil }
            response.body = Array(data[offset..<offset + length])
            return (response, offset + length)
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                guard let lineEnd = (offset..<max(offset, data.count - 1)).first(where: { data[$0] == 13 && data[$0 + 1] == 10 }) else { return nil }
                guard let size = Int(String(decoding: data[offset..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
                offset = lineEnd + 2
                if size == 0 {
                    guard data.count >= offset + 2 else { return nil }
                    return (response, offset + 2)
                }
                guard data.count >= offset + size + 2 else { return nil }
                response.body.append(contentsOf: data[offset..<offset + size])
                offset += size + 2
            }
        }
        return (response, offset)
    }
}
