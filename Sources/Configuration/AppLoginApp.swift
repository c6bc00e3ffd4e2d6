/// A native app the hand-off serves (Docs/handoff.md): its name, its one
/// exact callback and, for Android, its package.
public struct AppLoginApp: Sendable, Hashable, CustomStringConvertible {
    /// What `GET /bff/app-login/{requestId}` answers, and `start`'s `app`.
    public var name: String
    /// The exact callback: an absolute URI with a custom scheme (or
    /// `https`), no query, no fragment.
    public var callbackURI: String
    /// The Android package that alone receives the `intent://` form.
    public var androidPackage: String?

    /// An app.
    public init(name: String, callbackURI: String, androidPackage: String? = nil) {
        self.name = name
        self.callbackURI = callbackURI
        self.androidPackage = androidPackage
    }

    /// The callback with `query` appended (`?` and the query, already encoded).
    public func redirect(query: String) -> String { callbackURI + "?" + query }

    /// The Android `intent://` form of the redirect, when a package is
    /// configured: `intent://<rest of the callback>?<query>#Intent;scheme=<scheme>;package=<package>;end`.
    public func intent(query: String) -> String? {
        guard let androidPackage, let colon = callbackURI.firstIndex(of: ":") else { return nil }
        let scheme = callbackURI[..<colon]
        var rest = callbackURI[callbackURI.index(after: colon)...]
        while rest.hasPrefix("/") { rest = rest.dropFirst() }
        return "intent://\(rest)?\(query)#Intent;scheme=\(scheme);package=\(androidPackage);end"
    }

    /// The name, the callback and the package, for the summary.
    public var description: String {
        name + " " + callbackURI + (androidPackage.map { " (Android \($0))" } ?? "")
    }

    /// Why `text` cannot be a callback, or nil: an absolute URI (RFC 3986
    /// scheme, then `:` and at least one more character), `https` or a
    /// custom scheme (never `http` or a scheme a browser runs or reads
    /// itself), visible ASCII only, no query, no fragment.
    static func callbackProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 512, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "must be at most 512 visible ASCII characters"
        }
        guard let colon = text.firstIndex(of: ":"), text.index(after: colon) < text.endIndex else {
            return "must be an absolute URI (scheme:rest)"
        }
        let scheme = text[..<colon].lowercased()
        guard let first = scheme.utf8.first, (0x61...0x7A).contains(first),
              scheme.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || "+-.".utf8.contains($0) })
        else { return "must start with a scheme (a letter, then letters, digits, +, - or .)" }
        guard !text.contains("?"), !text.contains("#") else { return "must have no query and no fragment" }
        guard !refusedSchemes.contains(scheme) else { return "must use https or the app's own scheme, not \(scheme)" }
        if scheme == "https", !text.dropFirst(6).hasPrefix("//") || text.dropFirst(8).isEmpty {
            return "must name a host (https://host/path)"
        }
        return nil
    }

    /// Schemes a callback may not use: plain http, and schemes a browser
    /// handles itself.
    static let refusedSchemes: Set<String> = ["http", "javascript", "data", "file", "blob", "about", "vbscript", "ftp",
                                              "ws", "wss", "intent", "filesystem", "view-source", "chrome"]

    /// Why `text` cannot be an Android package name, or nil: at least two
    /// dot-separated segments, each a letter followed by letters, digits or `_`.
    static func packageProblem(_ text: String) -> String? {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        let valid = segments.count >= 2 && text.utf8.count <= 255 && segments.allSatisfy { segment in
            guard let first = segment.utf8.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else { return false }
            return segment.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
        }
        return valid ? nil : "must be an Android package name (like app.example.mobile)"
    }

    /// Why `text` cannot be an app name, or nil.
    static func nameProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.count <= 100, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return "must be 1 to 100 characters without control characters" }
        return nil
    }
}
