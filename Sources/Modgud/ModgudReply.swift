import Core
import HTTPCodec

/// What Modgud answered, as received: the gateway relays parts of it
/// (a 429 byte for byte) and classifies the rest.
public struct ModgudReply: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as JSON, when it is JSON.
    public var json: JSON? { try? JSON.parse(body) }

    public var isSuccess: Bool { (200..<300).contains(status.code) }
    public var isRateLimited: Bool { status.code == 429 }

    /// `error` of an OAuth error body (`{"error","error_description"}`).
    public var oauthError: String? { json?.value(forKeyIgnoringCase: "error")?.stringValue }

    /// `title` of a problem+json body (Modgud's `/api/*` errors, e.g.
    /// `NativeGrants.Disabled`, `Auth.ForwarderNotTrusted`).
    public var problemTitle: String? {
        guard headers["Content-Type"]?.lowercased().hasPrefix("application/problem+json") == true || json?["type"] != nil
        else { return nil }
        return json?.value(forKeyIgnoringCase: "title")?.stringValue
    }

    /// The rate-limit facts of a 429, read case-insensitively (the server
    /// may answer in camelCase or PascalCase); nil for any other status.
    public var rateLimit: RateLimitInfo? {
        guard isRateLimited else { return nil }
        let body = json
        return RateLimitInfo(
            policy: body?.value(forKeyIgnoringCase: "policy")?.stringValue ?? "unknown",
            dimension: body?.value(forKeyIgnoringCase: "dimension")?.stringValue ?? "unknown",
            retryAfterSeconds: headers["Retry-After"].flatMap { Int($0.trimmingSpacesAndTabs) }
                ?? body?.value(forKeyIgnoringCase: "retryAfterSeconds")?.intValue)
    }
}

/// Which limit Modgud applied.
public struct RateLimitInfo: Sendable, Equatable {
    public var policy: String
    public var dimension: String
    public var retryAfterSeconds: Int?

    public init(policy: String, dimension: String, retryAfterSeconds: Int?) {
        self.policy = policy
        self.dimension = dimension
        self.retryAfterSeconds = retryAfterSeconds
    }
}
