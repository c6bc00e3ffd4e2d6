import Testing
@testable import Configuration

@Suite("App hand-off settings")
struct AppLoginSettingsTests {
    @Test("no app by default; the default rates")
    func defaults() throws {
        let config = try loadConfig()
        #expect(config.apps.isEmpty)
        #expect(config.appLoginStartRate == RateLimit(count: 60, period: .seconds(60), burst: 30))
        #expect(config.appLoginSessionRate == RateLimit(count: 10, period: .seconds(60), burst: 10))
        #expect(config.appLoginTimes.requestLifetime == .seconds(600) && config.appLoginTimes.codeLifetime == .seconds(60))
    }

    @Test("one app from the environment, with its name and package; rates and off")
    func oneApp() throws {
        let config = try loadConfig(["BFF_APP_CALLBACK_URI": "mowdeck://auth/callback", "BFF_APP_NAME": "MowDeck",
                                     "BFF_APP_ANDROID_PACKAGE": "app.mowdeck.mobile",
                                     "BFF_APP_LOGIN_START_RATE": "5/second", "BFF_APP_LOGIN_SESSION_RATE": "off"])
        #expect(config.apps == [AppLoginApp(name: "MowDeck", callbackURI: "mowdeck://auth/callback",
                                            androidPackage: "app.mowdeck.mobile")])
        #expect(config.appLoginStartRate == RateLimit(count: 5, period: .seconds(1), burst: 5))
        #expect(config.appLoginSessionRate == nil)
        #expect(try loadConfig(["BFF_APP_CALLBACK_URI": "https://app.example.com/callback"]).apps.first?.name == "the app")
        let app = config.apps[0]
        #expect(app.intent(query: "code=a&state=b") == "intent://auth/callback?code=a&state=b#Intent;scheme=mowdeck;package=app.mowdeck.mobile;end")
        #expect(app.redirect(query: "code=a") == "mowdeck://auth/callback?code=a")
    }

    @Test("several apps from the JSON file")
    func severalApps() throws {
        let file = try TemporaryConfigFile(#"""
        {"apps": [{"name": "MowDeck", "callbackUri": "mowdeck://auth/callback", "androidPackage": "app.mowdeck.mobile"},
                  {"name": "Pro", "callbackUri": "com.example.pro:/callback"}],
         "appLoginStartRate": "100/hour,burst=20"}
        """#)
        defer { file.remove() }
        let config = try loadConfig(file: file.path)
        #expect(config.apps.map(\.name) == ["MowDeck", "Pro"])
        #expect(config.apps[1].callbackURI == "com.example.pro:/callback" && config.apps[1].androidPackage == nil)
        #expect(config.appLoginStartRate == RateLimit(count: 100, period: .seconds(3600), burst: 20))
        #expect(config.description.contains("BFF_APPS=MowDeck mowdeck://auth/callback"))
    }

    @Test("a callback that is not exact, a bad package or name, a bad rate are problems", arguments: [
        ("BFF_APP_CALLBACK_URI", "http://app.example.com/callback"), ("BFF_APP_CALLBACK_URI", "javascript:alert(1)"),
        ("BFF_APP_CALLBACK_URI", "mowdeck://auth/callback?x=1"), ("BFF_APP_CALLBACK_URI", "mowdeck://auth/callback#f"),
        ("BFF_APP_CALLBACK_URI", "/relative"), ("BFF_APP_CALLBACK_URI", "mow deck://x"), ("BFF_APP_CALLBACK_URI", "https:x"),
        ("BFF_APP_LOGIN_START_RATE", "60"), ("BFF_APP_LOGIN_START_RATE", "60/day"), ("BFF_APP_LOGIN_START_RATE", "0/minute"),
        ("BFF_APP_LOGIN_SESSION_RATE", "10/minute,burst=0"), ("BFF_APP_LOGIN_SESSION_RATE", "10/minute,bust=3"),
    ])
    func refused(_ name: String, _ value: String) throws {
        #expect(try loadProblems([name: value]).map(\.setting) == [name])
    }

    @Test("a package without a callback, both forms at once, and a list's problems each named")
    func combinations() throws {
        let apps = #"[{"name":"A","callbackUri":"a://cb"}]"#
        #expect(try loadProblems(["BFF_APP_ANDROID_PACKAGE": "app.a.b"]).map(\.setting) == ["BFF_APP_ANDROID_PACKAGE"])
        #expect(try loadProblems(["BFF_APP_CALLBACK_URI": "a://cb", "BFF_APPS": apps]).map(\.setting) == ["BFF_APPS"])
        #expect(try loadProblems(["BFF_APP_CALLBACK_URI": "a://cb", "BFF_APP_ANDROID_PACKAGE": "nodots"]).map(\.setting)
            == ["BFF_APP_ANDROID_PACKAGE"])
        let list = #"[{"name":"A","callbackUri":"http://x/cb"},{"name":"A","callbackUri":"a://cb","extra":1},{"callbackUri":"b://cb"},3]"#
        let problems = try loadProblems(["BFF_APPS": list]).map(\.setting)
        #expect(problems == ["BFF_APPS[0].callbackUri", "BFF_APPS[1]", "BFF_APPS[2].name", "BFF_APPS[3]"])
    }
}
