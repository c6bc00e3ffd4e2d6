import Core

/// One response header field a setting names (BFF_STATIC_HTML_HEADERS).
public struct HeaderField: Sendable, Equatable {
    /// The field name, as written.
    public let name: String
    /// Its value.
    public let value: String

    /// A field named `name` with `value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// The fields as one JSON object, in order (the setting's shape).
    static func jsonText(_ fields: [HeaderField]) -> String {
        var object = JSONObject()
        for field in fields { object[field.name] = .string(field.value) }
        return JSON.object(object).serializedString
    }
}

extension HeaderField {
    /// The security fields of a static HTML answer when
    /// BFF_STATIC_HTML_HEADERS changes none: a policy that runs only the
    /// origin's own scripts (no inline script), may not be framed, sends
    /// no referrer, and lets the page use passkeys.
    public static let staticHTMLDefaults: [HeaderField] = [
        HeaderField("Content-Security-Policy", "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'"),
        HeaderField("Referrer-Policy", "no-referrer"),
        HeaderField("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)"),
        HeaderField("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    /// Fields the static answers set themselves, which the setting may not
    /// name: framing, the representation's own fields, and cookies.
    static let reservedNames: Set<String> = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "date", "content-type", "content-encoding",
        "etag", "last-modified", "cache-control", "vary", "set-cookie", "x-content-type-options", "x-request-id",
    ]
}
