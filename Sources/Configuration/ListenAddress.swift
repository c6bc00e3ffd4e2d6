import Core
import System

/// Where a listener binds: an IP address and a port, or a Unix-domain
/// socket.
///
/// Written `host:port` with an IPv4 address, `[IPv6]:port`,
/// `localhost:port` (bound as `127.0.0.1`), or `unix:/absolute/path`.
/// Port `0` asks the kernel for a free port (handy in tests).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The IP address; unused (`0.0.0.0`) for a Unix-domain socket.
    public var host: IPAddress
    /// The port; unused (0) for a Unix-domain socket.
    public var port: UInt16
    /// The Unix-domain socket's absolute path; nil for TCP.
    public var socketPath: String?

    /// A TCP listener.
    public init(host: IPAddress, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// A Unix-domain socket listener at `socketPath`.
    public init(socketPath: String) {
        host = .v4(0)
        port = 0
        self.socketPath = socketPath
    }

    /// Parses the written form; nil when it is not one.
    public init?(_ text: String) {
        guard case .success(let address) = Self.parse(text) else { return nil }
        self = address
    }

    /// `127.0.0.1:8080`, `[::1]:8080`, `unix:/run/modgud-bff/public.sock`.
    public var description: String {
        if let socketPath { return Self.unixPrefix + socketPath }
        return host.isIPv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }

    /// Whether only this host's own processes can connect: a loopback
    /// address (a Unix-domain socket is not one).
    public var isLoopback: Bool { socketPath == nil && host.isLoopback }

    static let unixPrefix = "unix:"

    /// Whether two listeners would fight over one port: the same port (not
    /// 0) and the same address, `0.0.0.0` beside any IPv4 address, or `::`
    /// (dual-stack) beside any address.
    public func conflicts(with other: ListenAddress) -> Bool {
        if socketPath != nil || other.socketPath != nil { return socketPath == other.socketPath }
        guard port != 0, port == other.port else { return false }
        func covers(_ wide: IPAddress, _ narrow: IPAddress) -> Bool {
            wide.isUnspecified && (!wide.isIPv4 || narrow.isIPv4)
        }
        return host == other.host || covers(host, other.host) || covers(other.host, host)
    }

    static func parse(_ text: String) -> Result<ListenAddress, ValueProblem> {
        if text.hasPrefix(unixPrefix) { return parseSocketPath(String(text.dropFirst(unixPrefix.count))) }
        let form = "must be host:port, [IPv6]:port, localhost:port or unix:/absolute/path"
        let hostText: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"),
                  text[text.index(after: close)...].hasPrefix(":") else { return .failure(ValueProblem(form)) }
            hostText = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard hostText.contains(":") else { return .failure(ValueProblem(form)) }
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(ValueProblem(text.filter { $0 == ":" }.count > 1
                    ? "an IPv6 address must be written in brackets, like [::1]:8080" : form))
            }
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = Lexical.port(portText, allowZero: true) else {
            return .failure(ValueProblem("the port must be a number from 0 to 65535"))
        }
        if hostText.lowercased() == "localhost" { return .success(ListenAddress(host: .v4(0x7F00_0001), port: port)) }
        guard !hostText.isEmpty else { return .failure(ValueProblem("the host is missing; " + form)) }
        guard let host = IPAddress(hostText) else {
            return .failure(ValueProblem("the host must be an IP address or localhost"))
        }
        return .success(ListenAddress(host: host, port: port))
    }

    /// An absolute path that fits `sun_path`, without NUL or `..` parts.
    static func parseSocketPath(_ path: String) -> Result<ListenAddress, ValueProblem> {
        guard path.hasPrefix("/") else {
            return .failure(ValueProblem("a Unix socket path must be absolute, like unix:/run/modgud-bff/public.sock"))
        }
        guard !path.utf8.contains(0), !path.hasSuffix("/"), !path.split(separator: "/").contains("..") else {
            return .failure(ValueProblem("a Unix socket path must name a file, without NUL or '..'"))
        }
        guard path.utf8.count <= UnixSocketFile.maxPathBytes else {
            return .failure(ValueProblem("a Unix socket path may have at most \(UnixSocketFile.maxPathBytes) bytes "
                + "(sun_path); this one has \(path.utf8.count)"))
        }
        return .success(ListenAddress(socketPath: path))
    }
}

extension IPAddress {
    /// `127.0.0.0/8` or `::1`.
    var isLoopback: Bool {
        switch self {
        case .v4(let value): value >> 24 == 127
        case .v6(let high, let low): high == 0 && low == 1
        }
    }

    /// `0.0.0.0` or `::`: every address of the family.
    var isUnspecified: Bool {
        switch self {
        case .v4(let value): value == 0
        case .v6(let high, let low): high == 0 && low == 0
        }
    }
}
