import HTTP
import Observability

/// One registered route: its methods, pattern and endpoint. A class:
/// matching walks every route, and a struct of several fields would be
/// copied (and each field retained) at every step. Every field is a
/// constant, so a route is shared between loops as it is.
public final class Route: Sendable {
    /// The methods it answers (a GET route answers HEAD too). Usually
    /// one; a proxy prefix answers several with one route, so matching
    /// visits it once rather than once per method.
    public let methods: [HTTPMethod]
    /// The pattern as registered (`/bff/passkeys/{id}`, `/api/*`).
    public let pattern: String
    /// The pattern as a metric label.
    public let label: RouteLabel
    let segments: [Segment]
    let prefix: Bool
    /// The options it carries into the middleware chain.
    public let options: RouteOptions
    /// What answers the requests it matches.
    public let responder: any Responder
    /// Its place in registration order, which breaks ties between matches.
    let order: Int

    init(methods: [HTTPMethod], pattern: String, label: RouteLabel? = nil, segments: [Segment], prefix: Bool,
         options: RouteOptions, responder: any Responder, order: Int) {
        self.order = order
        self.methods = methods
        self.pattern = pattern
        self.label = label ?? RouteLabel(pattern)
        self.segments = segments
        self.prefix = prefix
        self.options = options
        self.responder = responder
    }

    /// A route that is no registered one (a request no route serves, a
    /// context made by a test): no methods, no segments.
    package convenience init(unregistered pattern: String, label: RouteLabel? = nil, options: RouteOptions,
                             responder: any Responder) {
        self.init(methods: [], pattern: pattern, label: label, segments: [], prefix: false, options: options,
                  responder: responder, order: 0)
    }

    /// One segment of a pattern.
    enum Segment: Sendable, Equatable {
        /// Compared byte for byte with a path's segment.
        case literal([UInt8])
        case parameter(String)
    }

    /// A route's rank among those a path fits (see `Router.match`): an
    /// exact route above any prefix, a longer prefix above a shorter one.
    var rank: Int {
        prefix ? segments.count : .max
    }

    /// Whether it answers `method` (a GET route answers HEAD too).
    func serves(_ method: HTTPMethod) -> Bool {
        methods.contains(method) || (method == .head && methods.contains(.get))
    }
}
