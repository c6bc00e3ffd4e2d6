import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// What the browser gets of an upstream's answer (Docs/proxy.md, "What the
/// browser receives"): every end-to-end field unchanged, no hop-by-hop
/// field (neither the fixed ones nor those the upstream's `Connection`
/// names), and the body intact, on both of the relay's paths: answered
/// from the loop without a task, and from a worker.
@Suite("API proxy: response hygiene", .serialized)
struct ProxyResponseHygieneTests {
    /// Which of the proxy's two paths a request takes.
    enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A GET without a body on a `token: none` route (`APIProxy.start`).
        case loop
        /// A POST with a body (`APIProxy.forward` on a request worker).
        case worker

        var testDescription: String { rawValue }
    }

    /// The upstream's end-to-end fields, in order, as the browser must get them.
    static let endToEnd: [(String, String)] = [
        ("X-Custom", #"a, b; c="d, e""#),
        ("Cache-Control", "private, max-age=60"),
        ("Set-Cookie", "theme=dark; Path=/; SameSite=Lax"),
        ("Set-Cookie", "lang=de; Path=/; HttpOnly"),
        ("Content-Type", "text/plain; charset=utf-8"),
    ]

    /// The upstream's hop-by-hop fields; `X-Hop` is one because its
    /// `Connection` field names it.
    static let hopByHop: [(String, String)] = [
        ("Connection", "close, X-Hop"),
        ("X-Hop", "1"),
        ("Keep-Alive", "timeout=5"),
        ("Upgrade", "h2c"),
        ("Proxy-Authenticate", "Basic"),
        ("Proxy-Connection", "keep-alive"),
        ("Trailer", "X-Sum"),
        ("Transfer-Encoding", "chunked"),
    ]

    static let pieces = ["hello, ", "chunked ", "world"]

    /// The upstream's answer: a 200 with both kinds of fields mixed, a
    /// chunked body in three pieces and an `X-Sum` trailer.
    static let answer: String = {
        let fields = [hopByHop[0], endToEnd[0], hopByHop[1], hopByHop[2], endToEnd[1], hopByHop[3], endToEnd[2],
                      hopByHop[4], hopByHop[5], endToEnd[3], hopByHop[6], hopByHop[7], endToEnd[4]]
        var text = "HTTP/1.1 200 OK\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        for piece in pieces { text += String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n" }
        return text + "0\r\nX-Sum: 42\r\n\r\n"
    }()

    /// The fields the gateway's own server writes on every answer.
    static let gatewayOwn: Set<String> = ["date", "x-request-id", "transfer-encoding", "content-length"]

    /// An upstream answers with every hop-by-hop field (and `X-Hop`, which
    /// its `Connection` names), a chunked body with a trailer, and ordinary
    /// fields. On either path the browser gets the ordinary fields exactly,
    /// in order (both `Set-Cookie`), no hop-by-hop field and no trailer,
    /// the gateway's own framing once, and the body whole.
    @Test(arguments: Path.allCases)
    func hopByHopFieldsNeverReachTheBrowserAndEndToEndFieldsPassUnchanged(path: Path) async throws {
        // Bytes written by hand: fields the gateway's own server never sends.
        let upstream = try RawUpstream([.answer(Self.answer, then: .close)])
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/open/", upstream: HTTPURL("http://127.0.0.1:\(upstream.port)/base/")!,
                                     token: .none)]
        })
        let withoutTask = { harness.service.publicServer.stats.answeredWithoutTask.load(ordering: .relaxed) }
        let before = withoutTask()
        // No `Connection: close`: the browser's connection is the gateway's
        // own business, so the answer should carry no `Connection` at all.
        let body = Array(#"{"order":7}"#.utf8)
        let request = switch path {
        case .loop:
            "GET /open/items?x=1 HTTP/1.1\r\nHost: localhost:\(harness.port)\r\nX-CSRF: 1\r\n\r\n"
        case .worker:
            "POST /open/items?x=1 HTTP/1.1\r\nHost: localhost:\(harness.port)\r\nX-CSRF: 1\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n" + String(decoding: body, as: UTF8.self)
        }
        let client = try RawClient(port: harness.port, timeout: 15)
        await client.send(request)
        let response = try #require(await client.readResponses(1).first)
        #expect(withoutTask() - before == (path == .loop ? 1 : 0), "the \(path) path answered")

        #expect(response.status == 200)
        let seen = upstream.received
        #expect(seen.map(\.requestLine) == [(path == .loop ? "GET" : "POST") + " /base/items?x=1 HTTP/1.1"])
        if path == .worker { #expect(seen.first?.body == body, "the upload arrived whole") }

        let names = response.headers.map { $0.0.lowercased() }
        for (name, _) in Self.hopByHop where name != "Transfer-Encoding" {
            #expect(!names.contains(name.lowercased()), "\(name) must not reach the browser")
        }
        #expect(!names.contains("x-sum"), "a trailer never becomes a field")
        #expect(response.headers.filter { $0.0.lowercased() == "transfer-encoding" }.map(\.1) == ["chunked"],
                "only the gateway's own framing")
        for (name, _) in Self.endToEnd where name != "Set-Cookie" {
            #expect(response.headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
                    == Self.endToEnd.filter { $0.0 == name }.map(\.1), "\(name) unchanged")
        }
        #expect(response.setCookies == ["theme=dark; Path=/; SameSite=Lax", "lang=de; Path=/; HttpOnly"],
                "both cookies, in order")
        let relayed = response.headers.filter { !Self.gatewayOwn.contains($0.0.lowercased()) }
        #expect(relayed.map { "\($0.0): \($0.1)" } == Self.endToEnd.map { "\($0.0): \($0.1)" },
                "the end-to-end fields exactly, in order, and nothing else but the gateway's own")
        #expect(response.bodyText == Self.pieces.joined(), "the body, whole")

        await harness.stop()
        withExtendedLifetime(upstream) {}
    }
}
