import Configuration
import Core
import Crypto
import HTTPCodec
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// Helpers of the app hand-off suites: the app's PKCE pair, its calls
/// from its web view, and the browser's calls.
enum AppLoginSupport {
    static let callback = "mowdeck://auth/callback"
    static let appName = "MowDeck"

    /// One app, MowDeck, with `package` for the intent form.
    static func configure(_ config: inout GatewayConfig, package: String? = nil) {
        config.apps = [AppLoginApp(name: appName, callbackURI: callback, androidPackage: package)]
    }

    /// The app's verifier and its S256 challenge.
    struct PKCEPair {
        let verifier: String
        let challenge: String

        init() {
            verifier = try! PKCE.makeVerifier()
            challenge = PKCE.s256Challenge(for: verifier)
        }
    }

    /// `start` from the app's web view.
    static func start(_ webView: Browser, _ pair: PKCEPair, app: String? = nil) async throws -> RawResponse {
        var body: JSONObject = ["codeChallenge": .string(pair.challenge), "codeChallengeMethod": "S256"]
        if let app { body["app"] = .string(app) }
        return try await webView.post("/bff/app-login/start", .object(body))
    }

    /// A request id from a successful `start`.
    static func requestID(_ webView: Browser, _ pair: PKCEPair, app: String? = nil) async throws -> String {
        let started = try await start(webView, pair, app: app)
        try #require(started.status == 201)
        return try #require(started.json?["requestId"]?.stringValue)
    }

    /// `code` from the signed-in browser.
    static func code(_ browser: Browser, requestID: String, state: String = "app-state-1") async throws -> RawResponse {
        try await browser.post("/bff/app-login/code", ["requestId": .string(requestID), "state": .string(state)])
    }

    /// The query of a `redirect` (or `intent`) answer, decoded.
    static func query(_ url: String) -> [String: String] {
        guard let question = url.firstIndex(of: "?") else { return [:] }
        var rest = url[url.index(after: question)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoded.parse(Array(rest.utf8)) ?? [] { fields[name] = value }
        return fields
    }

    /// The whole browser half: a request registered by the app, `code`
    /// answered by `browser`; returns the code from the redirect.
    static func handOff(_ browser: Browser, webView: Browser, _ pair: PKCEPair) async throws -> String {
        let id = try await requestID(webView, pair)
        let answered = try await code(browser, requestID: id)
        try #require(answered.status == 200)
        let redirect = try #require(answered.json?["redirect"]?.stringValue)
        return try #require(query(redirect)["code"])
    }

    /// `session` from the app's web view.
    static func redeem(_ webView: Browser, code: String, verifier: String) async throws -> RawResponse {
        try await webView.post("/bff/app-login/session", ["code": .string(code), "codeVerifier": .string(verifier)])
    }

    /// Waits until `condition` holds, at most `timeout`.
    static func waitUntil(timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }
}
