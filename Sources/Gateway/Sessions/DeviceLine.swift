/// The short line `GET /bff/sessions` shows for a session's browser:
/// "Chrome on macOS", "Safari on iOS", from the User-Agent at sign-in. No
/// versions; names come from fixed tables, so the line is short whatever
/// the header says. Unknown: "Unknown browser".
enum DeviceLine {
    /// Only this much of the header is read.
    static let maximumHeaderBytes = 512

    /// Browser marks, in the order they are tried: a browser built on
    /// another names both (Edge and Opera say "Chrome/", Chrome says
    /// "Safari/"), so the more specific comes first.
    static let browsers: [(mark: String, name: String)] = [
        ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"),
        ("OPR/", "Opera"), ("Opera", "Opera"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
        ("CriOS/", "Chrome"), ("Chromium/", "Chromium"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]

    /// System marks, in the order they are tried (iOS says "like Mac OS X",
    /// Android says "Linux").
    static let systems: [(mark: String, name: String)] = [
        ("iPhone", "iOS"), ("iPad", "iOS"), ("iPod", "iOS"),
        ("Android", "Android"),
        ("Windows", "Windows"),
        ("CrOS", "ChromeOS"),
        ("Macintosh", "macOS"), ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    ]

    /// The line for a User-Agent header (nil or empty: unknown).
    static func describe(userAgent: String?) -> String {
        guard let userAgent, !userAgent.isEmpty else { return "Unknown browser" }
        let head = Substring(userAgent.utf8.prefix(maximumHeaderBytes))
        let browser = browsers.first { head.contains($0.mark) }?.name
        let system = systems.first { head.contains($0.mark) }?.name
        switch (browser, system) {
        case (let browser?, let system?): return browser + " on " + system
        case (let browser?, nil): return browser
        case (nil, let system?): return "Unknown browser on " + system
        case (nil, nil): return "Unknown browser"
        }
    }
}
