import Core
import Foundation
import Synchronization
import TestSupport

/// A browser as far as the gateway can tell: a cookie jar, `X-CSRF: 1`
/// and the page's `Origin` on every call, one connection per request.
final class Browser: Sendable {
    let port: UInt16
    let origin: String
    private let jar = Mutex<[String: String]>([:])
    /// Every response this browser received (for the secret scan).
    let received = Mutex<[RawResponse]>([])

    init(port: UInt16, origin: String) {
        self.port = port
        self.origin = origin
    }

    var cookies: [String: String] { jar.withLock { $0 } }

    func setCookie(_ name: String, _ value: String) { jar.withLock { $0[name] = value } }

    @discardableResult
    func post(_ path: String, _ body: JSON? = nil, headers: [(String, String)] = []) async throws -> RawResponse {
        try await send("POST", path, body: body, headers: headers)
    }

    @discardableResult
    func get(_ path: String, headers: [(String, String)] = []) async throws -> RawResponse {
        try await send("GET", path, body: nil, headers: headers)
    }

    @discardableResult
    func send(_ method: String, _ path: String, body: JSON?, headers extra: [(String, String)] = [],
              csrf: Bool = true) async throws -> RawResponse {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: localhost:\(port)", "Connection: close"]
        if csrf { lines.append("X-CSRF: 1") }
        lines.append("Origin: \(origin)")
        let cookie = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !cookie.isEmpty { lines.append("Cookie: \(cookie)") }
        for (name, value) in extra { lines.append("\(name): \(value)") }
        let bytes = body?.serialized ?? []
        if body != nil { lines.append("Content-Type: application/json") }
        if body != nil || method == "POST" { lines.append("Content-Length: \(bytes.count)") }
        let client = try RawClient(port: port, timeout: 15)
        await client.send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes)
        guard let response = await client.readResponses(1).first else { throw BrowserError.noResponse }
        received.withLock { $0.append(response) }
        for (name, value) in response.headers where name.lowercased() == "set-cookie" { store(value) }
        return response
    }

    private func store(_ setCookie: String) {
        let first = setCookie.split(separator: ";").first ?? ""
        guard let equals = first.firstIndex(of: "=") else { return }
        let name = String(first[..<equals]).trimmingCharacters(in: .whitespaces)
        let value = String(first[first.index(after: equals)...])
        let expired = setCookie.lowercased().contains("max-age=0")
        jar.withLock { jar in
            if expired || value.isEmpty { jar[name] = nil } else { jar[name] = value }
        }
    }

    enum BrowserError: Error { case noResponse }
}

extension RawResponse {
    var json: JSON? { try? JSON.parse(body) }
    var setCookies: [String] { headers.filter { $0.0.lowercased() == "set-cookie" }.map(\.1) }
}
