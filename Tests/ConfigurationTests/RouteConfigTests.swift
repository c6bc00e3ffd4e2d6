import Testing
@testable import Configuration

@Suite("Routes")
struct RouteConfigTests {
    func routes(environment: [String: String] = machineEnvironment, _ json: String) throws -> [RouteConfig] {
        try loadConfig(environment.merging(["BFF_ROUTES": json]) { $1 }).routes
    }

    func problems(_ json: String) throws -> [ConfigError] {
        try loadProblems(clientEnvironment.merging(["BFF_ROUTES": json]) { $1 })
    }

    @Test("a full route and a minimal one")
    func valid() throws {
        // User routes with and without a resource: the default audience is needed.
        let parsed = try routes(environment: machineEnvironment.merging(["BFF_RESOURCE": "https://default.example.com"]) { $1 }, """
        [{"prefix":"/api/","upstream":"https://API:8080/base/","token":"user","resource":"https://api.example.com",
          "methods":["GET","POST","GET"],"maxBodyBytes":1048576},
         {"prefix":"/open/","upstream":"https://open.example.com","token":"none"},
         {"prefix":"/api/admin/","upstream":"https://admin/","token":"client"},
         {"prefix":"/maybe/","upstream":"https://m/","token":"user-or-anonymous","methods":null}]
        """)
        #expect(parsed.count == 4)
        #expect(parsed[0] == RouteConfig(prefix: "/api/", upstream: HTTPURL("https://api:8080/base/")!, token: .user,
                                         resource: "https://api.example.com", methods: ["GET", "POST"], maxBodyBytes: 1_048_576))
        #expect(parsed[1].upstream.description == "https://open.example.com/")
        #expect(parsed[1].methods == nil && parsed[1].maxBodyBytes == nil && parsed[1].resource == nil)
        #expect(parsed[2].token == .client)
        #expect(parsed[3].token == .userOrAnonymous)
    }

    @Test("the longest matching prefix wins")
    func lookup() throws {
        var config = GatewayConfig.defaults
        config.routes = try routes("""
        [{"prefix":"/api/","upstream":"https://a/","token":"none"},
         {"prefix":"/api/admin/","upstream":"https://b/","token":"none"}]
        """)
        #expect(config.route(for: "/api/admin/users")?.upstream.host == "b")
        #expect(config.route(for: "/api/x")?.upstream.host == "a")
        #expect(config.route(for: "/api") == nil)
        #expect(config.route(for: "/other/") == nil)
    }

    @Test("route problems, each named by index and key", arguments: [
        (#"[{"prefix":"api/","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/api","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/bff/x/","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/bff/","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/a//b/","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/a/../","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/a b/","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/a%2F/","upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/a/","upstream":"ftp://a/","token":"none"}]"#, "BFF_ROUTES[0].upstream"),
        (#"[{"prefix":"/a/","upstream":"https://a/base","token":"none"}]"#, "BFF_ROUTES[0].upstream"),
        (#"[{"prefix":"/a/","upstream":"/relative/","token":"none"}]"#, "BFF_ROUTES[0].upstream"),
        (#"[{"prefix":"/a/","upstream":"https://a/?x=1","token":"none"}]"#, "BFF_ROUTES[0].upstream"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"bearer"}]"#, "BFF_ROUTES[0].token"),
        (#"[{"prefix":"/a/","upstream":"https://a/"}]"#, "BFF_ROUTES[0].token"),
        (#"[{"prefix":"/a/","token":"none"}]"#, "BFF_ROUTES[0].upstream"),
        (#"[{"upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":5,"upstream":"https://a/","token":"none"}]"#, "BFF_ROUTES[0].prefix"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","resource":"https://r"}]"#, "BFF_ROUTES[0].resource"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"user","resource":"not a uri"}]"#, "BFF_ROUTES[0].resource"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"user","resource":"https://r#frag"}]"#, "BFF_ROUTES[0].resource"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","methods":[]}]"#, "BFF_ROUTES[0].methods"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","methods":["get"]}]"#, "BFF_ROUTES[0].methods"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","methods":["GE T"]}]"#, "BFF_ROUTES[0].methods"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","methods":"GET"}]"#, "BFF_ROUTES[0].methods"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","maxBodyBytes":-1}]"#, "BFF_ROUTES[0].maxBodyBytes"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","maxBodyBytes":1.5}]"#, "BFF_ROUTES[0].maxBodyBytes"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","maxBodyBytes":"1"}]"#, "BFF_ROUTES[0].maxBodyBytes"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none","tokn":"user"}]"#, "BFF_ROUTES[0]"),
        (#"[{"prefix":"/a/","upstream":"https://a/","token":"none"},{"prefix":"/a/","upstream":"https://b/","token":"none"}]"#,
         "BFF_ROUTES[1].prefix"),
        (#"["/a/"]"#, "BFF_ROUTES[0]"),
        (#"{"prefix":"/a/"}"#, "BFF_ROUTES"),
        (#"[{"prefix":"/a/""#, "BFF_ROUTES"),
    ])
    func refused(json: String, setting: String) throws {
        let found = try problems(json)
        #expect(found.map(\.setting) == [setting], "\(ConfigErrors(found))")
    }

    @Test("all the problems of all routes at once")
    func manyProblems() throws {
        let found = try problems("""
        [{"prefix":"x","upstream":"nope","token":"?","methods":["get"],"extra":1},
         {"prefix":"/ok/","upstream":"https://a/","token":"none"}]
        """)
        #expect(Set(found.map(\.setting)) == ["BFF_ROUTES[0]", "BFF_ROUTES[0].prefix", "BFF_ROUTES[0].upstream",
                                              "BFF_ROUTES[0].token", "BFF_ROUTES[0].methods"])
        #expect(found.first { $0.setting == "BFF_ROUTES[0]" }?.message == "unknown key \"extra\"")
    }

    @Test("a token route needs Modgud and the client")
    func needsModgud() throws {
        let json = #"[{"prefix":"/a/","upstream":"https://a/","token":"none"},{"prefix":"/b/","upstream":"https://b/","token":"user"}]"#
        let found = try loadProblems(["BFF_ROUTES": json])
        #expect(found.map(\.setting) == ["BFF_ROUTES[1].token"])
        #expect(found[0].message == "token user needs BFF_MODGUD_URL, BFF_CLIENT_ID, BFF_CLIENT_SECRET, which are not set")
        #expect(try loadConfig(["BFF_ROUTES": #"[{"prefix":"/a/","upstream":"https://a/","token":"none"}]"#]).routes.count == 1)
    }

    @Test("a client route needs the machine client too, and its two settings come together")
    func clientRouteNeedsTheMachineClient() throws {
        let json = #"[{"prefix":"/m/","upstream":"https://m/","token":"client"}]"#
        let found = try loadProblems(clientEnvironment.merging(["BFF_ROUTES": json]) { $1 })
        #expect(found.map(\.setting) == ["BFF_ROUTES[0].token"])
        #expect(found.first?.message == "token client needs BFF_M2M_CLIENT_ID, BFF_M2M_CLIENT_SECRET, which are not set")
        let half = try loadProblems(clientEnvironment.merging(["BFF_M2M_CLIENT_ID": "m2m"]) { $1 })
        #expect(half.map(\.setting) == ["BFF_M2M_CLIENT_SECRET"])
        let config = try loadConfig(machineEnvironment.merging(["BFF_ROUTES": json]) { $1 })
        #expect(config.machineClient?.id == "bff-m2m")
        #expect(!config.description.contains("m2m-s3cr3t"))
    }

    @Test("routes may be a real array in the file")
    func fromFile() throws {
        let file = try TemporaryConfigFile("""
        {"routes": [{"prefix": "/api/", "upstream": "https://api:8080/", "token": "none", "maxBodyBytes": 0}]}
        """)
        defer { file.remove() }
        let config = try loadConfig(file: file.path)
        #expect(config.routes.map(\.prefix) == ["/api/"])
        #expect(config.routes[0].maxBodyBytes == 0)
        let bad = try TemporaryConfigFile(#"{"routes": [{"prefix": "api"}]}"#)
        defer { bad.remove() }
        let found = try loadProblems(file: bad.path)
        #expect(found.allSatisfy { $0.message.hasSuffix("(routes in \(bad.path))") }, "\(found)")
    }

    @Test("errors never quote an upstream URL")
    func upstreamNotQuoted() throws {
        let found = try problems(#"[{"prefix":"/a/","upstream":"http://user:hunter2@a/","token":"none"}]"#)
        #expect(found.map(\.setting) == ["BFF_ROUTES[0].upstream"])
        #expect(!ConfigErrors(found).description.contains("hunter2"))
    }
}
