import Testing
@testable import Configuration

/// Every user token that reaches an API carries one audience: a mix of
/// user routes with and without a `resource` needs `BFF_RESOURCE` to
/// narrow the default token to (Docs/proxy.md, "Audiences").
@Suite("Configuration: token audiences")
struct AudienceConfigTests {
    static func route(_ prefix: String, _ token: String, _ resource: String?) -> String {
        let named = resource.map { #","resource":"\#($0)""# } ?? ""
        return #"{"prefix":"\#(prefix)","upstream":"https://api.example.com/","token":"\#(token)"\#(named)}"#
    }

    static func routes(_ items: [String]) -> [String: String] {
        machineEnvironment.merging(["BFF_ROUTES": "[" + items.joined(separator: ",") + "]"]) { $1 }
    }

    @Test func userRoutesWithAndWithoutAResourceNeedTheDefaultAudience() throws {
        let mixed = Self.routes([Self.route("/a/", "user", nil), Self.route("/b/", "user", "https://b.example.com"),
                                 Self.route("/c/", "user-or-anonymous", nil)])
        let found = try loadProblems(mixed)
        #expect(found.map(\.setting) == ["BFF_RESOURCE"])
        let message = try #require(found.first?.message)
        #expect(message.contains("BFF_ROUTES[0], BFF_ROUTES[2]"), "names the routes without a resource")
        #expect(message.contains("set BFF_RESOURCE"))

        let config = try loadConfig(mixed.merging(["BFF_RESOURCE": "https://a.example.com"]) { $1 })
        #expect(config.resource == "https://a.example.com")
    }

    @Test(arguments: [
        [route("/a/", "user", nil), route("/b/", "user-or-anonymous", nil)],
        [route("/a/", "user", "https://a.example.com"), route("/b/", "user", "https://b.example.com")],
        [route("/a/", "user", nil), route("/m/", "client", "https://m.example.com"), route("/n/", "none", nil)],
    ])
    func routesThatDoNotMixNeedNoDefaultAudience(_ items: [String]) throws {
        let config = try loadConfig(Self.routes(items))
        #expect(config.resource == nil)
    }
}

extension AudienceConfigTests {
    /// Several audiences are narrowed by refreshes, which need a refresh token.
    @Test func severalAudiencesNeedOfflineAccess() throws {
        let items = [Self.route("/a/", "user", "https://a.example.com"), Self.route("/b/", "user", "https://b.example.com")]
        let found = try loadProblems(Self.routes(items).merging(["BFF_SCOPES": "openid profile"]) { $1 })
        #expect(found.map(\.setting) == ["BFF_SCOPES"])
        #expect(found.first?.message.hasPrefix("must include offline_access") == true)
        // One audience: nothing to narrow.
        _ = try loadConfig(Self.routes([Self.route("/a/", "user", "https://a.example.com")])
            .merging(["BFF_SCOPES": "openid profile"]) { $1 })
        _ = try loadConfig(Self.routes(items))
    }
}
