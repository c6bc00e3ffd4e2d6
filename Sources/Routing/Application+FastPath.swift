import HTTP

/// Answers without a task: the responder's fast path, on the loop thread.
extension Application {
    /// Answers on the loop thread, without a task, when the matched
    /// route's responder has a fast path for the request (see
    /// `Responder.fastPath`): now, or later from a callback on the loop.
    /// Declined otherwise (the request then goes to `respond`). The same
    /// stages run around the answer.
    public func respondImmediately(_ request: HTTPRequest, _ later: HTTPLaterAnswer) -> HTTPImmediateAnswer {
        let match = router.match(request.method, path: request.path)
        guard case .found(let route, let parameters) = consume match, route.responder.hasFastPath else { return .declined }
        // The context first: a fast path passes its trace on. A declined
        // request leaves its id unused (ids are unique, not consecutive).
        let id = requestIDs.nextID()
        let context = context(for: request, id: id, trace: trace(of: request, id: id), route: route, parameters: parameters)
        guard let fastPath = route.responder.fastPath(for: request, context: context) else { return .declined }
        let (prepared, refusal) = pipeline.prepare(request, context)
        var outcome: Result<HTTPResponse, any Error>
        if let refusal {
            outcome = .failure(refusal)
        } else {
            switch fastPath {
            case .now(let handler):
                outcome = Result { try handler(request, context) }
            case .start(let start):
                // The pipeline alone is kept, not the application: each of
                // its fields would be retained.
                let pipeline = pipeline
                start(context) { (result: consuming Result<HTTPResponse, any Error>) in
                    let outcome = consume result
                    later.send(Self.finish(pipeline, request, context, prepared: prepared, outcome: consume outcome))
                }
                return .later
            }
        }
        return .now(Self.finish(pipeline, request, context, prepared: prepared, outcome: consume outcome))
    }

    /// What a server asks first about each request without a body: nil
    /// when no route has a fast path, so such a listener is not asked at all.
    public var immediateResponder: HTTPImmediateResponder? {
        router.hasFastPaths ? respondImmediately : nil
    }
}
