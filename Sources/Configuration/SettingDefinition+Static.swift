extension SettingDefinition {
    public static let staticRoot = SettingDefinition(
        "BFF_STATIC_ROOT", kind: .text, default: .unset,
        summary: "A directory whose files the public listener serves to GET and HEAD (Docs/static-files.md), after "
            + "every `/bff/` endpoint and API route; must exist. Not set: no static files.")
    public static let staticFallback = SettingDefinition(
        "BFF_STATIC_FALLBACK", kind: .text, default: .value("index.html"),
        summary: "The single-page app's file, relative to BFF_STATIC_ROOT, answered for a path without a file and "
            + "without an extension when the request accepts `text/html`; `off` answers 404 instead.")
    public static let staticHTMLHeaders = SettingDefinition(
        "BFF_STATIC_HTML_HEADERS", kind: .jsonObject, default: .value("{}"),
        summary: "Security headers of static HTML answers: a JSON object of field names and values laid over the "
            + "defaults in Docs/static-files.md; an empty value drops that field.")
    public static let staticRevalidate = SettingDefinition(
        "BFF_STATIC_REVALIDATE_MS", kind: .integer(0...3_600_000), default: .value("1000"),
        summary: "How long a small static file kept in memory is served before `stat` checks it again; 0 checks "
            + "on every request.")
}
