import Core

/// Where a listener binds: an IP address and a port.
///
/// Written `host:port` with an IPv4 address, `[IPv6]:port`, or
/// `localhost:port` (bound as `127.0.0.1`). Port `0` asks the kernel for a
/// free port (handy in tests).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: IPAddress
    public var port: UInt16

    public init(host: IPAddress, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses the written form; nil when it is not one.
    public init?(_ text: String) {
        guard case .success(let address) = Self.parse(text) else { return nil }
        self = address
    }

    /// `127.0.0.1:8080`, `[::1]:8080`.
    public var description: String {
        host.isIPv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }

    /// Whether two listeners would fight over one port: the same port (not
    /// 0) and the same address, `0.0.0.0` beside any IPv4 address, or `::`
    /// (dual-stack) beside any address.
    public func conflicts(with other: ListenAddress) -> Bool {
        guard port != 0, port == other.port else { return false }
        func covers(_ wide: IPAddress, _ narrow: IPAddress) -> Bool {
            wide.isUnspecified && (!wide.isIPv4 || narrow.isIPv4)
        }
        return host == other.host || covers(host, other.host) || covers(other.host, host)
    }

    static func parse(_ text: String) -> Result<ListenAddress, ValueProblem> {
        let form = "must be host:port, [IPv6]:port or localhost:port"
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
}

extension IPAddress {
    /// `0.0.0.0` or `::`: every address of the family.
    var isUnspecified: Bool {
        switch self {
        case .v4(let value): value == 0
        case .v6(let high, let low): high == 0 && low == 0
        }
    }
}
