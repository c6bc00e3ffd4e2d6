import HTTP

/// Maps a method and path to a route: the frozen tables a `RouterBuilder`
/// built. An exact route owns its path, and otherwise the longest prefix
/// does, whatever the method (see `match`).
public struct Router: Sendable {
    /// The outcome of matching a request.
    public enum Match: Sendable {
        /// The route itself, not copies of its fields: a copy of the match,
        /// and of the context made from it, retains one reference.
        case found(Route, parameters: [String: String])
        /// The route owning the path serves other methods: these.
        case methodNotAllowed([HTTPMethod])
        /// No route fits the path.
        case notFound
    }

    let table: RouteTable

    init(_ table: RouteTable) {
        self.table = table
    }

    /// A router with no routes: every request is `notFound`.
    public init() {
        self.init(RouteTable([]))
    }

    /// Some route's responder has a fast path (see `Responder`).
    public var hasFastPaths: Bool { table.hasFastPaths }

    /// Every method and pattern registered, for checks against the
    /// OpenAPI document.
    public var registered: [(method: HTTPMethod, pattern: String)] {
        table.routes.flatMap { route in route.methods.map { ($0, route.pattern) } }
    }

    /// The route for `method` and `path`. The routes the path fits are
    /// ranked: an exact route (every one the path fits has as many
    /// segments as the path) above any prefix, a longer prefix above a
    /// shorter one. The best rank owns the path: the first of its routes
    /// (in registration order) serving the method answers (a GET route
    /// serves HEAD too), and if none does the answer is 405 with their
    /// methods. A method the owner refuses never falls through to a
    /// shorter prefix: `methods` on `/api/admin/` would otherwise be
    /// bypassed through `/api/`.
    public func match(_ method: HTTPMethod, path: Substring) -> Match {
        let table = table
        if table.literalLengths & RouteTable.lengthBit(path.utf8.count) != 0, let exact = table.literal[path],
           let route = exact.first(where: { $0.methods.contains(method) })
               ?? (method == .head ? exact.first { $0.methods.contains(.get) } : nil) {
            return .found(route, parameters: [:])
        }
        // The segments as byte ranges of the path, on the stack: an array
        // of substrings would allocate on every request.
        return path.withContiguousUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: bytes.count / 2 + 1) { ranges in
                let count = PathParts.split(bytes, into: ranges)
                return table.match(method, PathParts(bytes: bytes, ranges: UnsafeBufferPointer(rebasing: ranges[..<count])))
            }
        }
    }
}
