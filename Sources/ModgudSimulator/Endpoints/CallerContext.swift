import Core
import Crypto
import HTTP

/// How a request proved which client it is.
enum ClientAuthMethod: String, Sendable {
    /// `Authorization: Basic` with the secret (the only method that counts
    /// for the trusted-forwarder capability).
    case basic
    /// `client_id` + `client_secret` in the form body.
    case post
    /// A public client named by `client_id`.
    case publicClient = "public"
    case none
}

/// Who is calling, as far as client authentication goes.
enum ClientAuthResult {
    case authenticated(ClientRegistration, ClientAuthMethod)
    case anonymous
    /// Credentials were presented and are wrong: `401 invalid_client`.
    case failed(String, basicAttempted: Bool)
}

/// The caller's address for the `source` dimension.
struct CallerSource: Sendable {
    /// The IPv4 address, or the IPv6 /64 block.
    var key: String
    var allowlisted: Bool
}

/// Client authentication and the trusted-forwarder rules (ADR 0019).
enum CallerContext {
    /// Client authentication as the token, revocation and introspection
    /// endpoints do it: Basic, else `client_secret_post`, else a public
    /// client's `client_id`. Wrong credentials fail; none is anonymous.
    static func authenticate(_ headers: HTTPHeaders, form: [(name: String, value: String)], config: SimulatorConfig)
        -> ClientAuthResult {
        let formId = form.first("client_id"), formSecret = form.first("client_secret")
        if let authorization = headers["Authorization"], authorization.lowercased().hasPrefix("basic ") {
            guard let (id, secret) = basicCredentials(authorization) else {
                return .failed("The client credentials are malformed.", basicAttempted: true)
            }
            guard formSecret == nil, formId == nil || formId == id else {
                return .failed("Multiple client credentials were presented.", basicAttempted: true)
            }
            guard let client = config.client(id), let expected = client.secret,
                  constantTimeEquals(Array(expected.utf8), Array(secret.utf8))
            else { return .failed("The specified client credentials are invalid.", basicAttempted: true) }
            return .authenticated(client, .basic)
        }
        if let formSecret {
            guard let formId, let client = config.client(formId), let expected = client.secret,
                  constantTimeEquals(Array(expected.utf8), Array(formSecret.utf8))
            else { return .failed("The specified client credentials are invalid.", basicAttempted: false) }
            return .authenticated(client, .post)
        }
        if let formId {
            guard let client = config.client(formId) else {
                return .failed("The specified client_id is unknown.", basicAttempted: false)
            }
            guard !client.isConfidential else {
                return .failed("The client must authenticate with its secret.", basicAttempted: false)
            }
            return .authenticated(client, .publicClient)
        }
        return .anonymous
    }

    /// Client authentication as the `/api/*` caller context reads it:
    /// only a valid Basic secret of a confidential client counts; anything
    /// else is an anonymous caller (never a 401).
    static func basicClient(_ headers: HTTPHeaders, config: SimulatorConfig) -> ClientRegistration? {
        guard let authorization = headers["Authorization"], authorization.lowercased().hasPrefix("basic "),
              let (id, secret) = basicCredentials(authorization), let client = config.client(id),
              let expected = client.secret, constantTimeEquals(Array(expected.utf8), Array(secret.utf8))
        else { return nil }
        return client
    }

    /// `base64(urlencode(id):urlencode(secret))`, both parts percent-decoded
    /// the way .NET's `Uri.UnescapeDataString` does (a `+` stays a `+`).
    static func basicCredentials(_ header: String) -> (String, String)? {
        let encoded = header.dropFirst("basic ".count).trimmingSpaces
        guard let bytes = Base64.decode(encoded), let text = String(validating: bytes, as: UTF8.self),
              let colon = text.firstIndex(of: ":"), colon != text.startIndex,
              let id = PercentDecoding.decode(text[..<colon]), let secret = PercentDecoding.decode(text[text.index(after: colon)...]),
              !secret.isEmpty
        else { return nil }
        return (id, secret)
    }

    /// Applies the `Modgud-Forwarded-For` rules. `basicClient` is the client
    /// authenticated with Basic on this request (nil otherwise). On a
    /// rate-limited endpoint an entitled client must send the header.
    static func source(_ exchange: Exchange, basicClient: ClientRegistration?, rateLimited: Bool,
                       config: SimulatorConfig) -> Result<CallerSource, HTTPErrorReply> {
        let values = exchange.request.headers.values("Modgud-Forwarded-For")
        let present = values.contains { !$0.trimmingSpaces.isEmpty }
        let entitled = basicClient?.isTrustedForwarder ?? false
        var address = exchange.request.peer?.ip
        if present {
            guard entitled else {
                return .failure(HTTPErrorReply(Reply.problem(
                    .badRequest, title: "Auth.ForwarderNotTrusted",
                    detail: "The Modgud-Forwarded-For header is accepted only from a confidential client that authenticated with HTTP Basic and holds cap:trusted-forwarder.")))
            }
            guard values.count == 1, let parsed = IPAddress(values[0].trimmingSpaces) else {
                return .failure(HTTPErrorReply(Reply.problem(
                    .badRequest, title: "Auth.ForwardedAddressRequired",
                    detail: "Modgud-Forwarded-For must be a single IPv4 or IPv6 literal without a port.")))
            }
            address = parsed
        } else if entitled, rateLimited {
            return .failure(HTTPErrorReply(Reply.problem(
                .badRequest, title: "Auth.ForwardedAddressRequired",
                detail: "A trusted forwarder must send the end user's address in the Modgud-Forwarded-For header.")))
        }
        guard let address else { return .success(CallerSource(key: "anon", allowlisted: false)) }
        let allowlisted = config.rateLimits.allowlist.contains { $0.contains(address) }
        return .success(CallerSource(key: sourceKey(address), allowlisted: allowlisted))
    }

    /// The address for IPv4, the /64 block for IPv6.
    static func sourceKey(_ address: IPAddress) -> String {
        if address.isIPv4 { return address.description }
        return CIDR(address: address, prefixLength: 64)?.description ?? address.description
    }
}

/// A finished answer carried as an error, so checks can stop a handler early.
struct HTTPErrorReply: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}
