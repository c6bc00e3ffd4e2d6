import Testing
@testable import Gateway

/// The short device line of `GET /bff/sessions`, from real User-Agent strings.
@Suite("Device line")
struct DeviceLineTests {
    static let cases: [(String?, String)] = [
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
         "Chrome on macOS"),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 "
            + "Mobile/15E148 Safari/604.1", "Safari on iOS"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 "
            + "Edg/131.0.0.0", "Edge on Windows"),
        ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
         "Chrome on Android"),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
         "Safari on macOS"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 "
            + "Mobile/15E148 Safari/604.1", "Chrome on iOS"),
        ("Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 "
            + "Safari/605.1.15", "Firefox on iOS"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Windows"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 "
            + "OPR/115.0.0.0", "Opera on Windows"),
        ("Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 "
            + "Chrome/122.0.0.0 Mobile Safari/537.36", "Samsung Internet on Android"),
        ("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
         "Chrome on ChromeOS"),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile "
            + "Safari/537.36 EdgA/131.0.0.0", "Edge on Android"),
        ("curl/8.5.0", "Unknown browser"),
        ("Mozilla/5.0 (X11; Linux x86_64)", "Unknown browser on Linux"),
        ("", "Unknown browser"),
        (nil, "Unknown browser"),
    ]

    @Test(arguments: cases)
    func aUserAgentBecomesAShortLine(_ userAgent: String?, _ expected: String) {
        #expect(DeviceLine.describe(userAgent: userAgent) == expected)
    }

    @Test func aHugeHeaderIsReadOnlyInPartAndGivesAShortLine() {
        let huge = String(repeating: "x", count: 100_000) + " Firefox/133.0 (X11; Linux x86_64)"
        #expect(DeviceLine.describe(userAgent: huge) == "Unknown browser")
        let line = DeviceLine.describe(userAgent: "Samsung " + String(repeating: "A", count: 600) + "SamsungBrowser/1")
        #expect(line.utf8.count <= 40)
        for (_, expected) in Self.cases { #expect(expected.utf8.count <= 40) }
    }
}
