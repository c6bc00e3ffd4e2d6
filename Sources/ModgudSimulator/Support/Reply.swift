import Core
import HTTP

/// Builders for the answers the simulator gives, in Modgud's shapes.
enum Reply {
    /// A JSON body. `noStore` adds the `Cache-Control`/`Pragma` pair
    /// OpenIddict puts on token-endpoint answers.
    static func json(_ status: HTTPStatus, _ body: JSON, headers: HTTPHeaders = HTTPHeaders(),
                     contentType: String = "application/json; charset=utf-8", noStore: Bool = false) -> HTTPResponse {
        var headers = headers
        headers.set("Content-Type", contentType)
        if noStore {
            headers.set("Cache-Control", "no-store")
            headers.set("Pragma", "no-cache")
        }
        return HTTPResponse(status: status, headers: headers, bytes: body.serialized)
    }

    /// RFC 9457 problem details, as ASP.NET's `Results.Problem` writes them:
    /// the error code in `title`, a sentence in `detail`.
    static func problem(_ status: HTTPStatus, title: String, detail: String) -> HTTPResponse {
        let type: String
        switch status.code {
        case 400: type = "https://tools.ietf.org/html/rfc9110#section-15.5.1"
        case 401: type = "https://tools.ietf.org/html/rfc9110#section-15.5.2"
        case 403: type = "https://tools.ietf.org/html/rfc9110#section-15.5.4"
        case 404: type = "https://tools.ietf.org/html/rfc9110#section-15.5.5"
        case 503: type = "https://tools.ietf.org/html/rfc9110#section-15.6.4"
        default: type = "about:blank"
        }
        let body: JSON = ["type": .string(type), "title": .string(title), "status": .int(Int64(status.code)),
                          "detail": .string(detail)]
        return json(status, body, contentType: "application/problem+json; charset=utf-8")
    }

    /// An OAuth error (`{"error","error_description"}`), never cached.
    static func oauth(_ error: String, _ description: String, status: HTTPStatus = .badRequest,
                      headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        json(status, ["error": .string(error), "error_description": .string(description)], headers: headers, noStore: true)
    }

    /// `401 invalid_client`, with a Basic challenge when Basic was tried.
    static func invalidClient(_ description: String, basicAttempted: Bool) -> HTTPResponse {
        var headers = HTTPHeaders()
        if basicAttempted {
            headers.set("WWW-Authenticate", #"Basic realm="modgud-sim", error="invalid_client""#)
        }
        return oauth("invalid_client", description, status: .unauthorized, headers: headers)
    }

    /// `401` for a missing or bad Bearer token (RFC 6750 §3).
    static func invalidToken(_ description: String = "The specified access token is invalid.") -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("WWW-Authenticate", #"Bearer error="invalid_token", error_description="\#(description)""#)
        return oauth("invalid_token", description, status: .unauthorized, headers: headers)
    }

    /// `{"Message": …}` with PascalCase, as the account endpoints answer.
    static func message(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        json(status, ["Message": .string(text)])
    }

    static func empty(_ status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: .empty)
    }

    static func html(_ status: HTTPStatus, _ page: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "text/html; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: status, headers: headers, bytes: Array(page.utf8))
    }

    static func redirect(_ location: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Location", location)
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: .found, headers: headers, body: .empty)
    }

    static func notFound() -> HTTPResponse {
        problem(.notFound, title: "NotFound", detail: "No such endpoint on the Modgud simulator.")
    }

    static func methodNotAllowed(_ allowed: [String]) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Allow", allowed.joined(separator: ", "))
        return HTTPResponse(status: .methodNotAllowed, headers: headers, body: .empty)
    }
}
