import Core
import HTTP

/// Which of the browser's fields go upstream, and which of the upstream's
/// come back (Docs/proxy.md, "What the upstream receives").
extension APIProxy {
    /// Never sent upstream: hop-by-hop fields (RFC 9110 §7.6.1), the
    /// browser's credentials and CSRF proof, framing the client recomputes,
    /// forwarding fields and trace context (the gateway sets its own:
    /// `traceparent` names the request's trace and a new span for the
    /// call; `tracestate` is not passed on), and fields through
    /// which a browser could steer an upstream or the frameworks in front
    /// of it: another method, another path, another client address. More
    /// are dropped by their shape (`isSteeringField`).
    static let requestHeadersDropped = FieldNameSet([
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authorization", "proxy-authenticate", "host", "content-length", "expect",
        "cookie", "x-csrf", "authorization", "traceparent", "tracestate",
        "forwarded", "x-forwarded", "modgud-forwarded-for", "x-real-ip", "true-client-ip", "x-client-ip",
        "cf-connecting-ip", "fastly-client-ip", "x-cluster-client-ip", "x-original-forwarded-for",
        "x-original-host", "x-host", "front-end-https", "x-url-scheme",
        "x-http-method-override", "x-method-override", "x-http-method", "x-original-url", "x-rewrite-url",
    ])

    /// Whether `name` is dropped by its shape rather than by name: every
    /// `X-Forwarded-*` field (`-For`, `-Proto`, `-Host`, `-Port`, `-Prefix`,
    /// `-Server`, `-Ssl` and any other a framework may believe), and every
    /// name holding `_`, which CGI-style servers (PHP, WSGI, Rack) read as
    /// the name with `-` (`X_Forwarded_For`); nginx drops those by default.
    static func isSteeringField(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if name.contains(UInt8(ascii: "_")) { return true }
        let prefix: StaticString = "x-forwarded-"
        guard name.count > prefix.utf8CodeUnitCount else { return false }
        return HTTPHeaders.equals(UnsafeBufferPointer(rebasing: name[0..<prefix.utf8CodeUnitCount]), lowercase: prefix)
    }

    /// Never relayed to the browser: hop-by-hop and framing fields;
    /// `Clear-Site-Data` too: an upstream must not make the browser drop
    /// the gateway's session cookie; and nginx's internal instructions
    /// (`X-Accel-Redirect` serves an internal location of the nginx in
    /// front, `X-Accel-Expires` overrides its caching), which only the
    /// gateway's own answers could rightly give it. (`X-Accel-Buffering`,
    /// which only turns buffering off for a stream, passes.)
    static let responseHeadersDropped = FieldNameSet([
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "content-length", "clear-site-data",
        "x-accel-redirect", "x-accel-expires", "x-accel-limit-rate", "x-accel-charset",
    ])

    /// Dropped from a personal answer (`AnswerRules.personal`): caching
    /// instructions addressed to CDNs and surrogates, which take them over
    /// `Cache-Control` (RFC 9213) and would store the answer for everyone.
    static let sharedCacheFields = FieldNameSet([
        "cdn-cache-control", "cloudflare-cdn-cache-control", "surrogate-control", "surrogate-key",
    ])

    func upstreamHeaders(_ incoming: HTTPHeaders, token: Secret?, client: IPAddress, trace: TraceContext) -> HTTPHeaders {
        let named = Self.connectionTokens(incoming, beyond: Self.requestHeadersDropped)
        // The fields added below: their names, "Bearer ", an address, a scheme and a traceparent fit in 200 bytes.
        let added = (token?.revealed.utf8.count ?? 0) + forwardedHost.utf8.count + 200
        var headers = HTTPHeaders(capacity: incoming.count + 5, byteCapacity: incoming.byteCount + added)
        for index in 0..<incoming.count {
            let dropped = incoming.withField(at: index) { name, _ in
                Self.isNamed(name, in: Self.requestHeadersDropped, or: named) || Self.isSteeringField(name)
            }
            if !dropped { headers.add(fieldAt: index, of: incoming) }
        }
        // The gateway's own fields, under token names, are marked checked
        // when their values are known to be clean, so the client does not
        // check them again: the token is checked here, an address and a
        // scheme are clean as written, the public authority was checked once.
        if let token {
            let clean = token.revealed.withContiguousUTF8 { FieldGrammar.isFieldValue(UnsafeRawBufferPointer($0)) }
            headers.add("Authorization", "Bearer ", token.revealed, checked: clean)
        }
        headers.add("X-Forwarded-For", "", client.description, checked: true)
        headers.add("X-Forwarded-Proto", "", publicOrigin.scheme.rawValue, checked: true)
        headers.add("X-Forwarded-Host", "", forwardedHost, checked: forwardedHostIsClean)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TraceContext.fieldLength) { buffer in
            trace.writeTraceparent(span: SpanIDs.next(), into: buffer)
            let name: StaticString = "traceparent"
            headers.add(checkedName: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount),
                        value: UnsafeBufferPointer(rebasing: buffer[..<TraceContext.fieldLength]))
        }
        return headers
    }

    /// The field names a `Connection` header lists (hop-by-hop for this
    /// message only) that `fixed` does not drop anyway. Usually none
    /// (`Connection: keep-alive`), and then nothing is allocated.
    static func connectionTokens(_ headers: HTTPHeaders, beyond fixed: FieldNameSet) -> [Substring] {
        var names: [Substring] = []
        for index in 0..<headers.count where headers.nameEquals(at: index, lowercase: "connection") {
            // The usual value lists no field name: skip the split.
            if headers.valueEquals(at: index, lowercase: "keep-alive") || headers.valueEquals(at: index, lowercase: "close") {
                continue
            }
            var rest = Substring(headers.value(at: index))
            while !rest.isEmpty {
                let comma = rest.utf8.firstIndex(of: UInt8(ascii: ",")) ?? rest.endIndex
                let name = rest[..<comma].trimmingSpacesAndTabs
                if !name.isEmpty, !fixed.contains(name), !name.equalsIgnoringASCIICase("close") { names.append(name) }
                rest = comma == rest.endIndex ? rest[comma...] : rest[rest.utf8.index(after: comma)...]
            }
        }
        return names
    }

    /// Whether `name` is one of `fixed` or `listed`, ignoring ASCII case.
    static func isNamed(_ name: UnsafeBufferPointer<UInt8>, in fixed: FieldNameSet, or listed: [Substring]) -> Bool {
        fixed.contains(name) || listed.contains { listed in listed.withContiguousUTF8 { String.equalIgnoringASCIICase(name, $0) } }
    }
}
