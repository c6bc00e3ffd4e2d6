#if canImport(Glibc)
import Glibc
#endif
import Core
import HTTP
import Observability

/// Options one route carries into the middleware chain.
public struct RouteOptions: Sendable {
    /// The largest request body the endpoint reads.
    public var maxBodyBytes: Int
    /// Whether `CSRFMiddleware` guards the route. On by default; off only
    /// for browser navigations and server-to-server endpoints.
    public var csrf: Bool

    public init(maxBodyBytes: Int = 64 * 1024, csrf: Bool = true) {
        self.maxBodyBytes = maxBodyBytes
        self.csrf = csrf
    }
}

/// Maps a method and path to an endpoint. Patterns are literal segments
/// and `{name}` parameters (`/bff/passkeys/{id}`); a pattern ending in
/// `/*` matches any path below it. An exact route owns its path, and
/// otherwise the longest prefix does, whatever the method (see `match`).
public struct Router: Sendable {
    /// A class: matching walks every route, and a struct of six fields
    /// would be copied (and each field retained) at every step.
    public final class Route: Sendable {
        /// The methods it answers (a GET route answers HEAD too). Usually
        /// one; a proxy prefix answers several with one route, so matching
        /// visits it once rather than once per method.
        let methods: [HTTPMethod]
        let pattern: String
        /// The pattern as a metric label.
        let label: RouteLabel
        let segments: [Segment]
        let prefix: Bool
        let options: RouteOptions
        let endpoint: RouteEndpoint
        /// Its place in registration order, which breaks ties between matches.
        let order: Int

        init(methods: [HTTPMethod], pattern: String, label: RouteLabel? = nil, segments: [Segment], prefix: Bool,
             options: RouteOptions, endpoint: RouteEndpoint, order: Int) {
            self.order = order
            self.methods = methods
            self.pattern = pattern
            self.label = label ?? RouteLabel(pattern)
            self.segments = segments
            self.prefix = prefix
            self.options = options
            self.endpoint = endpoint
        }
    }

    enum Segment: Sendable, Equatable {
        /// Compared byte for byte with a path's segment.
        case literal([UInt8])
        case parameter(String)
    }

    /// The outcome of matching a request.
    public enum Match: Sendable {
        /// The route itself, not copies of its fields: a copy of the match,
        /// and of the context made from it, retains one reference.
        case found(Route, parameters: [String: String])
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    /// The routes and their indexes, in one object: matching reads them
    /// from a copy of the router (the application's, a closure's), and a
    /// copy then retains one reference instead of each table. Copied on
    /// write; written only while routes are added.
    private var table = Table()

    /// `@unchecked Sendable` and `@exclusivity(unchecked)`: written only
    /// through `writableTable()`, by the one router holding it, while
    /// routes are added (before any request), so no access can overlap
    /// another; the run-time check cost every read while matching.
    final class Table: @unchecked Sendable {
        @exclusivity(unchecked) var routes: [Route] = []
        /// Routes without parameters or prefixes, by exact path: the common
        /// case, answered without splitting the path.
        @exclusivity(unchecked) var literal: [Substring: [Route]] = [:]
        /// Bit n set: some literal route's path is n bytes long (n < 64; bit
        /// 63 stands for every longer one). A path of another length skips
        /// the hash lookup above: a proxied path rarely has one.
        @exclusivity(unchecked) var literalLengths: UInt64 = 0
        /// The other routes by their first segment when it is literal, and
        /// those starting with a parameter (or with no segment), each in
        /// registration order: a path is matched only against the routes
        /// that can match its first segment. Lists, searched by bytes: a
        /// gateway has a handful of first segments, and comparing a few
        /// costs less than hashing one. Two arrays, not one of pairs:
        /// reading a pair copies (retains) both of its arrays.
        @exclusivity(unchecked) var firstLiterals: [[UInt8]] = []
        @exclusivity(unchecked) var byFirstLiteral: [[Route]] = []
        @exclusivity(unchecked) var openFirst: [Route] = []
        /// Some route's endpoint is immediate or starting (see `addImmediate`, `addStarting`).
        @exclusivity(unchecked) var hasImmediateRoutes = false

        func copy() -> Table {
            let copy = Table()
            (copy.routes, copy.literal, copy.literalLengths) = (routes, literal, literalLengths)
            (copy.firstLiterals, copy.byFirstLiteral, copy.openFirst) = (firstLiterals, byFirstLiteral, openFirst)
            copy.hasImmediateRoutes = hasImmediateRoutes
            return copy
        }
    }

    var routes: [Route] { table.routes }
    /// Some route's endpoint is immediate or starting (see `addImmediate`, `addStarting`).
    public var hasImmediateRoutes: Bool { table.hasImmediateRoutes }

    /// The table, to be written: this router's own.
    private mutating func writableTable() -> Table {
        if !isKnownUniquelyReferenced(&table) { table = table.copy() }
        return table
    }

    public init() {}

    /// Every method and pattern registered, for checks against the
    /// OpenAPI document.
    public var registered: [(method: HTTPMethod, pattern: String)] {
        routes.flatMap { route in route.methods.map { ($0, route.pattern) } }
    }

    public mutating func add(_ method: HTTPMethod, _ pattern: String, options: RouteOptions = RouteOptions(),
                             _ responder: @escaping Responder) {
        add([method], pattern, options: options, responder)
    }

    /// One route answering each of `methods` with the same endpoint.
    public mutating func add(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions = RouteOptions(),
                             _ responder: @escaping Responder) {
        add(methods, pattern, options: options, endpoint: .suspending(responder))
    }

    /// A route whose endpoint answers without suspending: the server runs
    /// it, and the middleware chain around it, on the loop thread as the
    /// request arrives (a request with a body still goes to a task).
    public mutating func addImmediate(_ method: HTTPMethod, _ pattern: String, options: RouteOptions = RouteOptions(),
                                      _ responder: @escaping ImmediateResponder) {
        add([method], pattern, options: options, endpoint: .immediate(responder))
        writableTable().hasImmediateRoutes = true
    }

    /// A route whose endpoint starts most answers on the loop thread and
    /// finishes them from a callback there, with no task (see
    /// `StartingResponder`); `otherwise` serves the rest in a worker.
    public mutating func addStarting(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions = RouteOptions(),
                                     _ start: @escaping StartingResponder, otherwise: @escaping Responder) {
        add(methods, pattern, options: options, endpoint: .starting(start, otherwise: otherwise))
        writableTable().hasImmediateRoutes = true
    }

    private mutating func add(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions, endpoint: RouteEndpoint) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /")
        guard !methods.isEmpty else { return } // answers nothing: nothing to register
        let isPrefix = pattern.hasSuffix("/*")
        let body = isPrefix ? String(pattern.dropLast(2)) : pattern
        let segments = body.split(separator: "/", omittingEmptySubsequences: true).map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
        let route = Route(methods: methods, pattern: pattern, segments: segments, prefix: isPrefix,
                          options: options, endpoint: endpoint, order: table.routes.count)
        let table = writableTable()
        table.routes.append(route)
        if case .literal(let first) = segments.first {
            if let index = table.firstLiterals.firstIndex(of: first) {
                table.byFirstLiteral[index].append(route)
            } else {
                table.firstLiterals.append(first)
                table.byFirstLiteral.append([route])
            }
        } else {
            table.openFirst.append(route)
        }
        if !isPrefix, !segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
            let path = "/" + segments.map { if case .literal(let part) = $0 { String(decoding: part, as: UTF8.self) } else { "" } }
                .joined(separator: "/")
            table.literal[Substring(path), default: []].append(route)
            table.literalLengths |= Self.lengthBit(path.utf8.count)
        }
    }

    public func match(_ method: HTTPMethod, path: Substring) -> Match {
        if table.literalLengths & Self.lengthBit(path.utf8.count) != 0, let exact = table.literal[path],
           let route = exact.first(where: { $0.methods.contains(method) })
               ?? (method == .head ? exact.first { $0.methods.contains(.get) } : nil) {
            return .found(route, parameters: [:])
        }
        // The segments as byte ranges of the path, on the stack: an array
        // of substrings was a fifth of the router's cost per request.
        return path.withContiguousUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: bytes.count / 2 + 1) { ranges in
                let count = Self.split(bytes, into: ranges)
                return match(method, Parts(bytes: bytes, ranges: UnsafeBufferPointer(rebasing: ranges[..<count])))
            }
        }
    }

    /// The routes the path fits are ranked: an exact route (every one the
    /// path fits has as many segments as the path) above any prefix, a
    /// longer prefix above a shorter one. The best rank owns the path: the
    /// first of its routes (in registration order) serving the method
    /// answers, and if none does the answer is 405 with their methods. A
    /// method the owner refuses never falls through to a shorter prefix:
    /// `methods` on `/api/admin/` would otherwise be bypassed through `/api/`.
    private func match(_ method: HTTPMethod, _ parts: Parts) -> Match {
        var best: (route: Route, parameters: [String: String])?
        var bestRank = -1
        let openFirst = table.openFirst
        var sameFirst: [Route] = []
        if parts.count > 0, let index = table.firstLiterals.indices.first(where: { parts.segment(0, equals: table.firstLiterals[$0]) }) {
            sameFirst = table.byFirstLiteral[index]
        }
        var (next, nextOpen) = (0, 0)
        // Both lists merged in registration order, as if walking every route.
        while next < sameFirst.count || nextOpen < openFirst.count {
            let route: Route
            if nextOpen == openFirst.count || (next < sameFirst.count && sameFirst[next].order < openFirst[nextOpen].order) {
                route = sameFirst[next]
                next += 1
            } else {
                route = openFirst[nextOpen]
                nextOpen += 1
            }
            let rank = Self.rank(route)
            guard rank > bestRank || (rank == bestRank && best == nil), let parameters = Self.bind(route, to: parts) else { continue }
            if rank > bestRank { (bestRank, best) = (rank, nil) }
            if Self.serves(route, method) { best = (route, parameters) }
        }
        if let best {
            return .found(best.route, parameters: best.parameters)
        }
        // The owner does not serve this method: which methods it has, if any.
        var allowed: [HTTPMethod] = []
        for route in table.routes where Self.rank(route) == bestRank && Self.bind(route, to: parts) != nil {
            for routeMethod in route.methods {
                for allowedMethod in routeMethod == .get ? [HTTPMethod.get, .head] : [routeMethod]
                where !allowed.contains(allowedMethod) {
                    allowed.append(allowedMethod)
                }
            }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    /// A route's rank among those a path fits (see `match`).
    private static func rank(_ route: Route) -> Int {
        route.prefix ? route.segments.count : .max
    }

    private static func lengthBit(_ length: Int) -> UInt64 {
        1 << UInt64(min(length, 63))
    }

    /// A path's non-empty segments: byte ranges of `bytes`.
    struct Parts {
        let bytes: UnsafeBufferPointer<UInt8>
        let ranges: UnsafeBufferPointer<Range<Int>>
        var count: Int { ranges.count }

        func segment(_ index: Int, equals literal: [UInt8]) -> Bool {
            let range = ranges[index]
            return range.count == literal.count
                && literal.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + range.lowerBound, $0.baseAddress!, range.count) == 0 }
        }

        func string(_ index: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges[index]]), as: UTF8.self)
        }
    }

    /// Writes the ranges of `bytes`' non-empty `/`-separated segments into
    /// `ranges` (room for `bytes.count / 2 + 1`: each takes a byte and a
    /// slash but the last) and returns how many there are.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, into ranges: UnsafeMutableBufferPointer<Range<Int>>) -> Int {
        var (count, start) = (0, 0)
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            if start != index {
                ranges.initializeElement(at: count, to: start..<index)
                count += 1
            }
            start = index + 1
        }
        return count
    }

    /// Whether `route` answers `method` (a GET route answers HEAD too).
    private static func serves(_ route: Route, _ method: HTTPMethod) -> Bool {
        route.methods.contains(method) || (method == .head && route.methods.contains(.get))
    }

    private static func bind(_ route: Route, to parts: Parts) -> [String: String]? {
        guard route.prefix ? parts.count >= route.segments.count : parts.count == route.segments.count else { return nil }
        var parameters: [String: String] = [:]
        for index in route.segments.indices {
            switch route.segments[index] {
            case .literal(let literal): guard parts.segment(index, equals: literal) else { return nil }
            case .parameter(let name): parameters[name] = parts.string(index)
            }
        }
        return parameters
    }
}
