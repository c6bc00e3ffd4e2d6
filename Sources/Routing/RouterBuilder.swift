import HTTP

/// Collects routes, then freezes them into a `Router` (`build`), whose
/// tables never change: a listener builds its router once, before any
/// request. Patterns are literal segments and `{name}` parameters
/// (`/bff/passkeys/{id}`); a pattern ending in `/*` matches any path
/// below it (see `Router.match` for which route wins).
public struct RouterBuilder: Sendable {
    private(set) var routes: [Route] = []

    /// An empty builder.
    public init() {}

    /// A route answering `method` with `handler`, in a task.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, options: RouteOptions = RouteOptions(),
                             _ handler: @escaping RouteHandler) {
        add([method], pattern, options: options, responder: HandlerResponder(handler))
    }

    /// One route answering each of `methods` with `handler`, in a task.
    public mutating func add(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions = RouteOptions(),
                             _ handler: @escaping RouteHandler) {
        add(methods, pattern, options: options, responder: HandlerResponder(handler))
    }

    /// A route whose endpoint answers without suspending: the server runs
    /// it, and the middleware chain around it, on the loop thread as the
    /// request arrives (a request with a body still goes to a task).
    public mutating func addImmediate(_ method: HTTPMethod, _ pattern: String, options: RouteOptions = RouteOptions(),
                                      _ handler: @escaping ImmediateHandler) {
        add([method], pattern, options: options, responder: ImmediateResponder(handler))
    }

    /// One route answering each of `methods` with `responder` (see
    /// `Responder` for its fast path).
    public mutating func add(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions = RouteOptions(),
                             responder: some Responder) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /")
        guard !methods.isEmpty else { return } // answers nothing: nothing to register
        let isPrefix = pattern.hasSuffix("/*")
        let body = isPrefix ? String(pattern.dropLast(2)) : pattern
        let segments = body.split(separator: "/", omittingEmptySubsequences: true).map { part -> Route.Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
        routes.append(Route(methods: methods, pattern: pattern, segments: segments, prefix: isPrefix,
                            options: options, responder: responder, order: routes.count))
    }

    /// Every method and pattern added so far.
    public var registered: [(method: HTTPMethod, pattern: String)] {
        routes.flatMap { route in route.methods.map { ($0, route.pattern) } }
    }

    /// The routes added so far, frozen into a router; adding more to this
    /// builder afterwards leaves that router as it is.
    public func build() -> Router {
        Router(RouteTable(routes))
    }
}
