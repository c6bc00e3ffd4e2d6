import HTTP
import HTTPClient
import Routing

/// The upstream's answer as the browser's (Docs/proxy.md): its
/// fields filtered in place, the gateway's own cookies never relayed, a
/// personal answer kept out of shared caches, the upstream's own URLs
/// moved to the public origin (`AnswerRules`), a small sized body passed
/// whole.
extension APIProxy {
    /// Bodies up to this size with a declared length are read whole before
    /// answering, so the answer leaves in one write; larger or unsized ones
    /// stream.
    static let smallBodyBytes = 64 * 1024

    /// The upstream's answer as the browser's. Its fields are filtered in
    /// their own buffer, which the consumed `response` leaves to this
    /// function alone: no second buffer, no field copied.
    func relay(_ response: consuming HTTPClientStreamingResponse, head: Bool, rules: AnswerRules, extraCookies: [String],
               context: RequestContext) async throws -> HTTPResponse {
        // Consumed, so the answer's header buffer has one owner (the
        // request id is added to it in place).
        let relayed = relayed(response, head: head, rules: rules, extraCookies: extraCookies)
        switch consume relayed {
        case .answer(let answer):
            return answer
        case .collect(let status, let headers, let body):
            return try await Self.collected(status, headers, body, context: context)
        }
    }

    /// `relay` for an answer started without a task: the answer goes to
    /// `done`, from a task of its own only when a small body must still
    /// be collected (it did not come with the head).
    func relay(_ response: consuming HTTPClientStreamingResponse, head: Bool, rules: AnswerRules, context: RequestContext,
               _ done: @escaping AnswerHandler) {
        let relayed = relayed(response, head: head, rules: rules, extraCookies: [])
        switch consume relayed {
        case .answer(let answer):
            done(.success(answer))
        case .collect(let status, let headers, let body):
            Task {
                do {
                    done(.success(try await Self.collected(status, headers, body, context: context)))
                } catch {
                    done(.failure(error))
                }
            }
        }
    }

    /// The answer with its small sized body collected; an upstream that
    /// fails on the way is a 502 (or a 504 when it stalls).
    private static func collected(_ status: HTTPStatus, _ headers: HTTPHeaders, _ body: HTTPClientResponseBody,
                                  context: RequestContext) async throws(GatewayError) -> HTTPResponse {
        do throws(HTTPClientError) {
            return HTTPResponse(status: status, headers: headers, bytes: try await body.collect(upTo: smallBodyBytes))
        } catch {
            throw failure(error, context: context)
        }
    }

    /// The browser's answer as far as it can be made without waiting: the
    /// answer, or its status and filtered fields with a small sized body
    /// still to be collected.
    private enum Relayed {
        case answer(HTTPResponse)
        case collect(HTTPStatus, HTTPHeaders, HTTPClientResponseBody)
    }

    private func relayed(_ response: consuming HTTPClientStreamingResponse, head: Bool, rules: AnswerRules,
                         extraCookies: [String]) -> Relayed {
        let (status, body) = (response.status, response.body)
        var headers = response.headers
        _ = consume response
        let named = Self.connectionTokens(headers, beyond: Self.responseHeadersDropped)
        // The first Content-Length, read as the fields go by (it is not
        // relayed: the framing is redone). A list such as `5, 5`, which the
        // client accepts when its items agree, reads as none: it streams.
        var length: Int?
        var lengthSeen = false
        // A personal answer's caching fields, and the locations moved from
        // the upstream's base to the public origin, added back below.
        var cacheControl: [String] = []
        var varyCoversCookie = false
        var locations: [(name: String, value: String)] = []
        headers.removeFields { name, value in
            if !lengthSeen, HTTPHeaders.equals(name, lowercase: "content-length") {
                lengthSeen = true
                length = HTTPHeaders.decimal(value)
            }
            if Self.isNamed(name, in: Self.responseHeadersDropped, or: named) { return true }
            if rules.personal {
                if Self.sharedCacheFields.contains(name) { return true }
                if HTTPHeaders.equals(name, lowercase: "cache-control") {
                    cacheControl.append(String(decoding: value, as: UTF8.self))
                    return true
                }
                if !varyCoversCookie, HTTPHeaders.equals(name, lowercase: "vary") {
                    varyCoversCookie = AnswerRules.varyCoversCookie(value)
                }
            }
            if HTTPHeaders.equals(name, lowercase: "location") || HTTPHeaders.equals(name, lowercase: "content-location"),
               let moved = rules.publicLocation(value) {
                locations.append((String(decoding: name, as: UTF8.self), moved))
                return true
            }
            return HTTPHeaders.equals(name, lowercase: "set-cookie") && isGatewayCookie(String(decoding: value, as: UTF8.self))
        }
        for (name, value) in locations { headers.add(name, value) }
        if rules.personal {
            if cacheControl.isEmpty {
                headers.add("Cache-Control", "", "private", checked: true)
            } else {
                headers.add("Cache-Control", AnswerRules.privateCacheControl(cacheControl))
            }
            if !varyCoversCookie { headers.add("Vary", "", "Cookie", checked: true) }
        }
        for cookie in extraCookies { headers.add("Set-Cookie", cookie) }
        if let length, length <= Self.smallBodyBytes, !head, status.allowsBody {
            if let whole = body.takeWhole(upTo: Self.smallBodyBytes) {
                return .answer(HTTPResponse(status: status, headers: consume headers, bytes: whole))
            }
            return .collect(status, consume headers, body)
        }
        return .answer(HTTPResponse(status: status, headers: consume headers, body: .stream(length: length) { writer in
            for try await piece in body { try await writer.write(piece) }
        }))
    }

    /// A `Set-Cookie` for one of the gateway's own cookie names: an API
    /// must not be able to replace or clear the session.
    private func isGatewayCookie(_ value: String) -> Bool {
        let name = Substring(value.utf8.prefix { $0 != UInt8(ascii: "=") }).trimmingSpacesAndTabs
        return name == sessions.configuration.cookieName || name == sessions.configuration.flowCookieName
    }
}
