import Core
import HTTP

/// One request on its way through the simulator: the request, its parsed
/// target, and the record `/dev/requests` will show, filled in as the
/// handlers learn who is calling.
struct Exchange {
    let request: HTTPRequest
    let path: String
    let query: [(name: String, value: String)]
    let startedAt: Double
    /// The route pattern for statistics, e.g. `DELETE /connect/passkey/{id}`.
    var route: String
    /// The matched route's path parameters (`id` for `/connect/passkey/{id}`).
    var parameters: [String: String] = [:]
    var record: RequestRecord
    private var cachedBody: [UInt8]?

    static let bodyLimit = 64 * 1024

    init(request: HTTPRequest, now: Double) {
        self.request = request
        path = String(request.path)
        query = request.head.query.flatMap { FormURLEncoded.parse($0) } ?? []
        startedAt = now
        route = "\(request.method.rawValue) \(path)"
        record = RequestRecord(method: request.method.rawValue, path: path, at: now)
        record.forwardedFor = request.headers.values("Modgud-Forwarded-For").joined(separator: ", ").nilIfEmpty
        record.traceparent = request.headers.values("traceparent").joined(separator: ", ").nilIfEmpty
        record.browserHeaders = Self.browserHeaderNames(request.headers)
        if let authorization = request.headers["Authorization"] {
            record.authorization = authorization.split(separator: " ").first.map { $0.lowercased() }
        }
    }

    var method: HTTPMethod { request.method }

    func header(_ name: String) -> String? { request.headers[name] }

    func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The request body, read once; nil when it is too large or broken.
    mutating func body() async -> [UInt8]? {
        if let cachedBody { return cachedBody }
        guard let bytes = try? await request.body.collect(upTo: Self.bodyLimit) else { return nil }
        cachedBody = bytes
        return bytes
    }

    /// The body as `application/x-www-form-urlencoded` pairs; nil when the
    /// content type is another or the form is malformed.
    mutating func form() async -> [(name: String, value: String)]? {
        guard let type = header("Content-Type"),
              type.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return nil }
        guard let bytes = await body() else { return nil }
        return FormURLEncoded.parse(bytes)
    }

    /// The body as JSON; nil when absent or not JSON.
    mutating func json() async -> JSON? {
        guard let bytes = await body(), !bytes.isEmpty else { return nil }
        return try? JSON.parse(bytes)
    }

    /// Names of the headers a browser sends that must never reach Modgud
    /// through a gateway; the values are never kept.
    static func browserHeaderNames(_ headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for field in headers {
            let lower = field.name.lowercased()
            let canonical: String?
            switch lower {
            case "cookie": canonical = "Cookie"
            case "origin": canonical = "Origin"
            case "referer": canonical = "Referer"
            case "x-csrf": canonical = "X-CSRF"
            default: canonical = lower.hasPrefix("sec-fetch-") ? field.name : nil
            }
            if let canonical, !names.contains(canonical) { names.append(canonical) }
        }
        return names
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension Array where Element == (name: String, value: String) {
    /// Every value of `name`, in order.
    func all(_ name: String) -> [String] { filter { $0.name == name }.map(\.value) }
}
