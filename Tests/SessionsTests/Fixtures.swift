import Core
import Crypto
import Sessions

/// Realistic session content: opaque 43-character access and refresh
/// tokens, a ~900-byte RS256 id token, userinfo with a few claims.
enum Fixtures {
    static let subject = "3f0c9a52-6e1d-4b7a-9c1e-8d2f4a6b7c90"

    static func token() -> String { try! SecureRandom.token(byteCount: 32) }

    /// A JWT-shaped id token of about 900 bytes: header, claims, 256-byte signature.
    static func idToken(subject: String = subject) -> String {
        let header = #"{"alg":"RS256","kid":"modgud-2026-01","typ":"JWT"}"#
        let claims = #"{"iss":"https://id.example.com","sub":"\#(subject)","aud":"bff-web","exp":1780003600,"#
            + #""iat":1780000000,"auth_time":1780000000,"nonce":"\#(token())","sid":"\#(token())","#
            + #""at_hash":"\#(token().prefix(22))","email":"ada.lovelace@example.com","email_verified":true,"#
            + #""name":"Ada Lovelace","amr":["otp"]}"#
        let signature = try! SecureRandom.bytes(count: 256)
        return Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + "."
            + Base64URL.encode(signature)
    }

    static func claims(subject: String = subject) -> [UInt8] {
        Array(#"{"sub":"\#(subject)","email":"ada.lovelace@example.com","email_verified":true,"#.utf8)
            + Array(#""given_name":"Ada","family_name":"Lovelace","name":"Ada Lovelace","locale":"en-GB"}"#.utf8)
    }

    static func data(subject: String = subject, now: UInt64 = 1_780_000_000_000, refreshExpiresAt: UInt64? = nil)
        -> SessionData
    {
        SessionData(
            subject: subject, claims: claims(subject: subject), sid: token(), method: .passkey,
            tokens: SessionTokens(
                accessToken: Secret(token()), accessTokenExpiresAt: now + 300_000,
                refreshToken: Secret(token()), refreshTokenExpiresAt: refreshExpiresAt,
                idToken: Secret(idToken(subject: subject)), scope: "openid profile email offline_access",
                resources: ["https://api.example.com": .init(accessToken: Secret(token()), expiresAt: now + 300_000)]))
    }

    /// Every secret and personal value in `data`, as the bytes that must
    /// never appear in clear in the store.
    static func sensitiveValues(of data: SessionData) -> [[UInt8]] {
        var values = [data.subject, data.tokens.accessToken.revealed, data.tokens.scope]
        values += [data.tokens.refreshToken?.revealed, data.tokens.idToken?.revealed, data.sid].compactMap { $0 }
        values += data.tokens.resources.values.map(\.accessToken.revealed)
        values += ["ada.lovelace@example.com", "Lovelace"]
        return values.map { Array($0.utf8) } + [data.claims]
    }

    /// The cookie value in a `Set-Cookie` header value.
    static func cookieValue(_ setCookie: Secret) -> String {
        let text = setCookie.revealed
        let start = text.index(after: text.firstIndex(of: "=")!)
        return String(text[start..<text.firstIndex(of: ";")!])
    }

    /// A `Cookie` request header carrying what `setCookie` set.
    static func cookieHeader(_ setCookie: Secret) -> String {
        let text = setCookie.revealed
        return String(text[..<text.firstIndex(of: ";")!])
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
