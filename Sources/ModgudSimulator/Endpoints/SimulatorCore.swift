import Core
import HTTP
import Observability
import Routing

/// The simulator's state and endpoints, and what runs around each
/// endpoint (`serve`): faults, the CSRF gate, the request record and counters.
final class SimulatorCore: Sendable {
    let state: SimulatorState

    init(state: SimulatorState) {
        self.state = state
    }

    /// Serves a request a route matched: faults, the CSRF gate, then the
    /// endpoint's `handler`, then the request record and counters.
    func serve(_ request: HTTPRequest, route: String, parameters: [String: String],
               _ handler: SimulatorEndpoint.Handler) async -> HTTPResponse {
        var exchange = Exchange(request: request, now: state.now())
        exchange.route = "\(request.method.rawValue) \(route)"
        exchange.parameters = parameters
        let config = state.config
        var response: HTTPResponse
        var dropAfterHandling = false
        if !exchange.path.hasPrefix("/dev/"), let fault = state.faults.take(method: request.method.rawValue, path: exchange.path) {
            state.stats.count("faults", "\(request.method.rawValue) \(exchange.path)")
            switch fault {
            case .status(let code):
                response = Reply.json(HTTPStatus(code), ["error": "simulated_fault", "status": .int(Int64(code))])
                return finish(&exchange, response)
            case .drop:
                return finish(&exchange, Self.dropped, statusForRecord: 0)
            case .dropAfterHandling:
                dropAfterHandling = true
            case .delay(let milliseconds):
                try? await Task.sleep(for: .milliseconds(milliseconds))
            }
        }
        if let refusal = csrfRefusal(exchange) {
            return finish(&exchange, refusal)
        }
        response = await handler(&exchange, config)
        if dropAfterHandling { return finish(&exchange, Self.dropped, statusForRecord: 0) }
        return finish(&exchange, response)
    }

    /// Answers a request no route serves (`error` is the router's 404 or
    /// 405), recorded as any other: the CSRF gate first, as for a route.
    func unmatched(_ request: HTTPRequest, _ error: any Error) -> HTTPResponse {
        var exchange = Exchange(request: request, now: state.now())
        if let refusal = csrfRefusal(exchange) { return finish(&exchange, refusal) }
        let path = exchange.path
        let dev = path == "/dev" || path.hasPrefix("/dev/")
        if dev, !state.config.devEndpoints { return finish(&exchange, Reply.notFound()) }
        if let error = error as? any HTTPResponseError, error.status == .methodNotAllowed,
           let allowed = error.responseHeaders["Allow"] {
            return finish(&exchange, Reply.methodNotAllowed(allowed.split(separator: ",").map { String($0.trimmingSpacesAndTabs) }))
        }
        exchange.route = "\(exchange.method.rawValue) \(dev ? "/dev/(unknown)" : "(unknown)")"
        return finish(&exchange, Reply.notFound())
    }

    /// An answer whose body breaks off: the connection closes after the head.
    private static var dropped: HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"],
                     body: .stream(length: 64) { _ in throw SimulatedDrop() })
    }

    private func finish(_ exchange: inout Exchange, _ response: HTTPResponse, statusForRecord: Int? = nil) -> HTTPResponse {
        exchange.record.status = statusForRecord ?? response.status.code
        exchange.record.durationMs = (state.now() - exchange.startedAt) * 1000
        state.recorder.append(exchange.record)
        state.stats.count("endpoints", exchange.route)
        state.stats.count("statuses", String(exchange.record.status))
        if state.logger.isEnabled(.debug) {
            state.logger.debug("http.access", [
                "method": .string(exchange.record.method), "path": .string(exchange.path),
                "status": .int(exchange.record.status), "clientId": .string(exchange.record.clientId ?? ""),
                "grantType": .string(exchange.record.grantType ?? ""),
            ])
        }
        return response
    }

    /// Modgud's CSRF gate on state-changing `/api/*` calls: a cross-site
    /// `Sec-Fetch-Site`, or an `Origin`/`Referer` whose host is not the
    /// request's `Host`, is refused with `403 csrf_blocked`.
    func csrfRefusal(_ exchange: Exchange) -> HTTPResponse? {
        guard exchange.path.hasPrefix("/api/"), [.post, .put, .patch, .delete].contains(exchange.method) else { return nil }
        let headers = exchange.request.headers
        let host = headers["Host"]?.lowercased() ?? ""
        var blocked = headers["Sec-Fetch-Site"].map { $0.lowercased() == "cross-site" } ?? false
        for name in ["Origin", "Referer"] {
            guard let value = headers[name] else { continue }
            if Self.authority(of: value)?.lowercased() != host { blocked = true }
        }
        guard blocked else { return nil }
        state.stats.count("csrf", "blocked")
        return Reply.json(.forbidden, ["error": "csrf_blocked",
                                       "error_description": "Cross-site request refused by Modgud's CSRF gate."])
    }

    /// `host[:port]` of an absolute URL, or nil (for `null` and garbage).
    static func authority(of url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<end]
        return authority.isEmpty ? nil : String(authority)
    }
}

/// Thrown by a streamed body to make the server cut the connection.
struct SimulatedDrop: Error {}
