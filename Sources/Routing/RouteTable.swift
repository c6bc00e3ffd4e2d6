import HTTP

/// A router's routes and their indexes, built once from the routes in
/// registration order and never changed: every field a constant, so the
/// table is `Sendable` as it is and reading it needs no exclusivity check.
/// One object, so a copy of the router (the application's, a closure's)
/// retains one reference instead of each table.
final class RouteTable: Sendable {
    let routes: [Route]
    /// Routes without parameters or prefixes, by exact path: the common
    /// case, answered without splitting the path.
    let literal: [Substring: [Route]]
    /// Bit n set: some literal route's path is n bytes long (n < 64; bit
    /// 63 stands for every longer one). A path of another length skips
    /// the hash lookup above: a proxied path rarely has one.
    let literalLengths: UInt64
    /// The other routes by their first segment when it is literal, and
    /// those starting with a parameter (or with no segment), each in
    /// registration order: a path is matched only against the routes
    /// that can match its first segment. Lists, searched by bytes: a
    /// gateway has a handful of first segments, and comparing a few
    /// costs less than hashing one. Two arrays, not one of pairs:
    /// reading a pair copies (retains) both of its arrays.
    let firstLiterals: [[UInt8]]
    let byFirstLiteral: [[Route]]
    let openFirst: [Route]
    /// Some route's responder has a fast path (see `Responder`).
    let hasFastPaths: Bool

    init(_ routes: [Route]) {
        var literal: [Substring: [Route]] = [:]
        var literalLengths: UInt64 = 0
        var firstLiterals: [[UInt8]] = []
        var byFirstLiteral: [[Route]] = []
        var openFirst: [Route] = []
        for route in routes {
            if case .literal(let first) = route.segments.first {
                if let index = firstLiterals.firstIndex(of: first) {
                    byFirstLiteral[index].append(route)
                } else {
                    firstLiterals.append(first)
                    byFirstLiteral.append([route])
                }
            } else {
                openFirst.append(route)
            }
            if !route.prefix, !route.segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
                let path = "/" + route.segments.map { if case .literal(let part) = $0 { String(decoding: part, as: UTF8.self) } else { "" } }
                    .joined(separator: "/")
                literal[Substring(path), default: []].append(route)
                literalLengths |= Self.lengthBit(path.utf8.count)
            }
        }
        self.routes = routes
        self.literal = literal
        self.literalLengths = literalLengths
        self.firstLiterals = firstLiterals
        self.byFirstLiteral = byFirstLiteral
        self.openFirst = openFirst
        hasFastPaths = routes.contains { $0.responder.hasFastPath }
    }

    @inline(__always)
    static func lengthBit(_ length: Int) -> UInt64 {
        1 << UInt64(min(length, 63))
    }
}
