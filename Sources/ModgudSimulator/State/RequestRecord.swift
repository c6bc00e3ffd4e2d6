import Core

/// What `/dev/requests` shows about one request: never a secret, only
/// names, client ids, the forwarded address and the trace context.
struct RequestRecord: Sendable {
    var seq = 0
    var method: String
    var path: String
    var at: Double
    var status = 0
    var durationMs = 0.0
    var grantType: String?
    /// The client the request authenticated as (or claimed, for a public client).
    var clientId: String?
    /// `basic`, `post`, `public`, `bearer` or `none`.
    var clientAuth = "none"
    /// The `Authorization` scheme (lower case), if any.
    var authorization: String?
    /// The raw `Modgud-Forwarded-For` value(s).
    var forwardedFor: String?
    /// The raw `traceparent` value(s).
    var traceparent: String?
    /// Names of browser headers present (Cookie, Origin, Referer, Sec-Fetch-*, X-CSRF).
    var browserHeaders: [String] = []
    /// The rate-limit rejection, as `policy/dimension`.
    var rateLimited: String?

    init(method: String, path: String, at: Double) {
        self.method = method
        self.path = path
        self.at = at
    }

    var json: JSON {
        var object: JSONObject = [
            "seq": .int(Int64(seq)), "at": .string(ISODate.format(at)), "method": .string(method),
            "path": .string(path), "status": .int(Int64(status)),
            "durationMs": .double((durationMs * 1000).rounded() / 1000),
        ]
        object["grantType"] = grantType.map { .string($0) } ?? .null
        object["clientId"] = clientId.map { .string($0) } ?? .null
        object["clientAuth"] = .string(clientAuth)
        object["authorization"] = authorization.map { .string($0) } ?? .null
        object["forwardedFor"] = forwardedFor.map { .string($0) } ?? .null
        object["traceparent"] = traceparent.map { .string($0) } ?? .null
        object["browserHeaders"] = .array(browserHeaders.map { .string($0) })
        object["rateLimited"] = rateLimited.map { .string($0) } ?? .null
        return .object(object)
    }
}
