/// The `Content-Type` of a static file, by its extension (in any case).
enum StaticContentType {
    /// The type for `name`; `application/octet-stream` for an extension
    /// not in the table, and text types with `; charset=utf-8`.
    static func of(_ name: Substring) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return octetStream }
        return types[name[name.index(after: dot)...].lowercased()] ?? octetStream
    }

    /// Whether a file of type `type` is an HTML document (gets the
    /// security fields and `no-cache`).
    static func isHTML(_ type: String) -> Bool { type.hasPrefix("text/html") }

    static let octetStream = "application/octet-stream"

    private static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "txt": "text/plain; charset=utf-8",
        "json": "application/json; charset=utf-8", "map": "application/json; charset=utf-8",
        "webmanifest": "application/manifest+json; charset=utf-8", "svg": "image/svg+xml; charset=utf-8",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2", "wasm": "application/wasm",
    ]
}
