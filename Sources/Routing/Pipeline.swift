import HTTP

/// The stages around every endpoint, the first outermost (see `Middleware`).
struct Pipeline: Sendable {
    private let stages: [any Middleware]

    init(_ stages: [any Middleware]) {
        self.stages = stages
    }

    /// Runs every stage's `prepare` and checks the declared body length
    /// against the route's limit: how many stages prepared, and the error
    /// that stopped the request before its endpoint, if one did.
    @inline(__always)
    func prepare(_ request: HTTPRequest, _ context: RequestContext) -> (prepared: Int, refusal: (any Error)?) {
        for index in stages.indices {
            do {
                try stages[index].prepare(request, context: context)
            } catch {
                return (index, error)
            }
        }
        if let length = request.body.declaredLength, length > context.routeOptions.maxBodyBytes {
            return (stages.count, HTTPError.payloadTooLarge)
        }
        return (stages.count, nil)
    }

    /// Runs `finish` of the first `prepared` stages, innermost first.
    @inline(__always)
    func finish(_ request: HTTPRequest, _ context: RequestContext, prepared: Int,
                outcome: inout Result<HTTPResponse, any Error>) {
        var index = prepared
        while index > 0 {
            index -= 1
            stages[index].finish(request, context: context, outcome: &outcome)
        }
    }
}
