import HTTPClient

/// How a call to Modgud ended, as the `outcome` label of
/// `bff_modgud_calls_total` names it. A fixed set; every call has exactly
/// one.
public enum ModgudCallOutcome: String, Sendable, CaseIterable {
    /// A 1xx–3xx answer.
    case ok
    /// A 4xx answer other than 429: the browser's input refused, a grant
    /// pending or expired, or the gateway's own credentials refused.
    case refused
    /// A 429.
    case rateLimited = "rate_limited"
    /// A 5xx.
    case error
    /// No answer: the connection was refused, reset or closed early, TLS
    /// failed, or the call was cancelled.
    case unreachable
    /// No answer within `BFF_MODGUD_TIMEOUT_MS`.
    case timeout
    /// An answer that could not be read: malformed, or larger than allowed.
    case badResponse = "bad_response"

    /// The outcome of an answer with `status`.
    public init(status: Int) {
        switch status {
        case 429: self = .rateLimited
        case 500...: self = .error
        case 400...: self = .refused
        default: self = .ok
        }
    }

    /// The outcome of a call that got no usable answer.
    init(_ error: HTTPClientError) {
        switch error {
        case .timedOut: self = .timeout
        case .responseTooLarge, .invalidResponse: self = .badResponse
        default: self = .unreachable
        }
    }

}
