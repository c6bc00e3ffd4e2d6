import Core
import Sessions
#if canImport(Glibc)
import Glibc
#endif

/// What the browser learns about its session: the user's claims (from
/// userinfo, `sub` first) and the session's times. Never a token.
enum UserView {
    static func body(_ session: Session) -> JSON {
        ["user": user(session), "session": ["authenticatedAt": .string(iso8601(milliseconds: session.authenticatedAt)),
                                            "expiresAt": .string(iso8601(milliseconds: session.absoluteExpiresAt))]]
    }

    static func user(_ session: Session) -> JSON {
        var object = JSONObject()
        object["sub"] = .string(session.data.subject)
        if let claims = try? JSON.parse(session.data.claims), let pairs = claims.objectValue {
            for (key, value) in pairs where key != "sub" { object[key] = value }
        }
        return .object(object)
    }

    /// `2026-11-30T16:40:00Z`.
    static func iso8601(milliseconds: UInt64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
