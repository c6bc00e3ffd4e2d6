import Core

extension Lexical {
    /// Splits a URL authority (no user info) into its host, normalised
    /// (an IPv6 literal in canonical form without brackets, a name in lower
    /// case), and the text after its colon, if any.
    static func splitHostAndPort(_ authority: Substring) -> Result<(host: String, port: Substring?), ValueProblem> {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]"),
                  let address = IPAddress(authority[authority.index(after: authority.startIndex)..<close]) else {
                return .failure(ValueProblem("the host in brackets must be an IPv6 address"))
            }
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                return .failure(ValueProblem("unexpected text after the IPv6 host"))
            }
            return .success((address.description, after.isEmpty ? nil : after.dropFirst()))
        }
        let colon = authority.firstIndex(of: ":")
        let name = authority[..<(colon ?? authority.endIndex)]
        guard isHostName(name) else {
            return .failure(ValueProblem(name.isEmpty ? "the host is missing" : "the host is not a valid name or address"))
        }
        return .success((name.lowercased(), colon.map { authority[authority.index(after: $0)...] }))
    }
}
