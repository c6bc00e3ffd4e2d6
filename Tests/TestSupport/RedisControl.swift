import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blocking control calls to a Redis node or sentinel on loopback, for
/// fixtures and tests: one fresh connection per call, the command sent as
/// a RESP array, one RESP2 reply read back. Blocking: call it from a
/// Dispatch thread (``blocking(_:)``), never from the cooperative pool.
public enum RedisControl {
    /// One RESP2 reply.
    public enum Reply: Sendable, Equatable {
        /// `+OK`, `+PONG`.
        case simple(String)
        /// `-ERR ...`, `-NOAUTH ...`: the text after the dash.
        case error(String)
        /// `:42`.
        case integer(Int)
        /// `$n` bulk string; nil for the null bulk string.
        case bulk(String?)
        /// `*n` array; nil for the null array.
        case array([Reply]?)

        /// The text of a simple or non-null bulk string.
        public var string: String? {
            switch self {
            case .simple(let text): text
            case .bulk(let text): text
            default: nil
            }
        }

        /// The elements of a non-null array.
        public var elements: [Reply]? {
            if case .array(let elements) = self { return elements }
            return nil
        }

        /// Whether the reply is an error.
        public var isError: Bool {
            if case .error = self { return true }
            return false
        }
    }

    /// Sends `arguments` to 127.0.0.1:`port` (after `AUTH password` when
    /// given) and returns the reply; nil when the connection or I/O fails
    /// or takes longer than `timeout` seconds. A failed `AUTH` returns its
    /// error reply.
    public static func call(port: UInt16, password: String? = nil, timeout: Double = 1, _ arguments: [String]) -> Reply? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var request: [UInt8] = []
        if let password { request += encode(["AUTH", password]) }
        request += encode(arguments)
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return nil }
            sent += n
        }
        var reader = ReplyReader(fd: fd)
        if password != nil {
            guard let auth = reader.read() else { return nil }
            if auth.isError { return auth }
        }
        return reader.read()
    }

    /// `arguments` as a RESP array of bulk strings.
    static func encode(_ arguments: [String]) -> [UInt8] {
        var bytes = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            let utf8 = Array(argument.utf8)
            bytes += Array("$\(utf8.count)\r\n".utf8) + utf8 + [13, 10]
        }
        return bytes
    }
}

/// Reads RESP2 replies from a blocking socket, receiving more bytes as
/// parsing needs them.
private struct ReplyReader {
    let fd: Int32
    var buffer: [UInt8] = []
    var position = 0

    mutating func read() -> RedisControl.Reply? {
        guard let line = readLine(), let kind = line.first else { return nil }
        let text = String(decoding: line.dropFirst(), as: UTF8.self)
        switch kind {
        case UInt8(ascii: "+"): return .simple(text)
        case UInt8(ascii: "-"): return .error(text)
        case UInt8(ascii: ":"): return Int(text).map(RedisControl.Reply.integer)
        case UInt8(ascii: "$"):
            guard let length = Int(text) else { return nil }
            if length < 0 { return .bulk(nil) }
            guard let bytes = take(length + 2) else { return nil }
            return .bulk(String(decoding: bytes.dropLast(2), as: UTF8.self))
        case UInt8(ascii: "*"):
            guard let count = Int(text) else { return nil }
            if count < 0 { return .array(nil) }
            var elements: [RedisControl.Reply] = []
            for _ in 0..<count {
                guard let element = read() else { return nil }
                elements.append(element)
            }
            return .array(elements)
        default: return nil
        }
    }

    /// The next line without its CRLF.
    private mutating func readLine() -> ArraySlice<UInt8>? {
        while true {
            if let end = buffer[position...].firstIndex(of: 10), end > position, buffer[end - 1] == 13 {
                defer { position = end + 1 }
                return buffer[position..<(end - 1)]
            }
            guard fill() else { return nil }
        }
    }

    private mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        while buffer.count - position < count {
            guard fill() else { return nil }
        }
        defer { position += count }
        return buffer[position..<(position + count)]
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }
}
