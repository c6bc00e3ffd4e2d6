import HTTP

/// The rule `Router.match` describes, over a path split into byte ranges.
extension RouteTable {
    func match(_ method: HTTPMethod, _ parts: PathParts) -> Router.Match {
        var best: (route: Route, parameters: [String: String])?
        var bestRank = -1
        let openFirst = openFirst
        var sameFirst: [Route] = []
        if parts.count > 0, let index = firstLiterals.indices.first(where: { parts.segment(0, equals: firstLiterals[$0]) }) {
            sameFirst = byFirstLiteral[index]
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
            let rank = route.rank
            guard rank > bestRank || (rank == bestRank && best == nil), let parameters = Self.bind(route, to: parts) else { continue }
            if rank > bestRank { (bestRank, best) = (rank, nil) }
            if route.serves(method) { best = (route, parameters) }
        }
        if let best {
            return .found(best.route, parameters: best.parameters)
        }
        // The owner does not serve this method: which methods it has, if any.
        var allowed: [HTTPMethod] = []
        for route in routes where route.rank == bestRank && Self.bind(route, to: parts) != nil {
            for routeMethod in route.methods {
                for allowedMethod in routeMethod == .get ? [HTTPMethod.get, .head] : [routeMethod]
                where !allowed.contains(allowedMethod) {
                    allowed.append(allowedMethod)
                }
            }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    /// The route's parameters bound to the path's segments, or nil when
    /// the path does not fit the route.
    private static func bind(_ route: Route, to parts: PathParts) -> [String: String]? {
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
