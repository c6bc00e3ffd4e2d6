import Testing
@testable import Configuration

/// Settings that would hand the session cookie or tokens to someone else:
/// refused, or accepted by an explicit opt-out that is then a caution.
@Suite("Configuration exposure refusals")
struct ExposureTests {
    static let openFiles: UInt64 = 1 << 20

    @Test("a session cookie without the __Host- prefix is refused, saying how to fix it",
          arguments: ["bff", "__host-bff", "__Secure-bff", "Host-bff"])
    func cookieWithoutHostPrefix(name: String) throws {
        let found = try loadProblems(["BFF_SESSION_COOKIE": name])
        #expect(found.map(\.setting) == ["BFF_SESSION_COOKIE"])
        let message = try #require(found.first?.message)
        #expect(message.hasPrefix("\"\(name)\" lacks the __Host- prefix"))
        #expect(message.contains("__Host-bff") && message.contains("BFF_ALLOW_INSECURE_COOKIE_NAME=true"))
    }

    @Test("the cookie refusal names the file it came from")
    func cookieFromFile() throws {
        let file = try TemporaryConfigFile(#"{"sessionCookie": "sid"}"#)
        defer { file.remove() }
        let found = try loadProblems(file: file.path)
        #expect(found.map(\.setting) == ["BFF_SESSION_COOKIE"])
        #expect(found.first?.message.hasSuffix("(sessionCookie in \(file.path))") == true)
    }

    @Test("BFF_ALLOW_INSECURE_COOKIE_NAME accepts the name, and a caution says so at every start")
    func cookieOptOut() throws {
        let config = try loadConfig(["BFF_SESSION_COOKIE": "sid", "BFF_ALLOW_INSECURE_COOKIE_NAME": "true"])
        #expect(config.sessionCookie == "sid")
        #expect(config.allowInsecureCookieName)
        let cautions = config.cautions(openFileLimit: Self.openFiles)
        #expect(cautions.count == 1)
        #expect(cautions.first?.hasPrefix("BFF_SESSION_COOKIE (sid) lacks the __Host- prefix and is accepted only "
            + "because BFF_ALLOW_INSECURE_COOKIE_NAME is true") == true)
        #expect(config.description.contains("BFF_ALLOW_INSECURE_COOKIE_NAME=true"))
        // The opt-out with a __Host- name changes nothing and draws no caution.
        let unused = try loadConfig(["BFF_ALLOW_INSECURE_COOKIE_NAME": "true"])
        #expect(unused.cautions(openFileLimit: Self.openFiles).isEmpty)
        // Set to false it is the default: still refused.
        let off = try loadProblems(["BFF_SESSION_COOKIE": "sid", "BFF_ALLOW_INSECURE_COOKIE_NAME": "false"])
        #expect(off.map(\.setting) == ["BFF_SESSION_COOKIE"])
    }

    @Test("plain http to Modgud off the machine is refused, naming the host and never the URL",
          arguments: ["http://id.internal:8080/realm/", "http://10.0.0.5", "http://128.0.0.1", "http://[::2]",
                      "http://localhost.example.com", "http://0.0.0.0"])
    func plainHTTPModgud(url: String) throws {
        let found = try loadProblems(clientEnvironment.merging(["BFF_MODGUD_URL": url]) { $1 })
        #expect(found.map(\.setting) == ["BFF_MODGUD_URL"])
        let message = try #require(found.first?.message)
        let host = try #require(HTTPURL(url)?.host)
        #expect(message.hasPrefix("uses plain http to \(host), which is not a loopback host: the client secret"))
        #expect(message.contains("use https, or add \(host) to BFF_ALLOW_HTTP_HOSTS"))
        #expect(!message.contains("http://"))
    }

    @Test("plain http to a loopback host is accepted without a caution",
          arguments: ["http://127.0.0.1:1", "http://127.9.8.7/", "http://localhost:5080", "http://LOCALHOST",
                      "http://[::1]:5080/", "http://[::ffff:127.0.0.1]/"])
    func loopbackHTTP(url: String) throws {
        let upstream = url.hasSuffix("/") ? url : url + "/"
        let routes = #"[{"prefix":"/api/","upstream":"\#(upstream)","token":"user"}]"#
        let config = try loadConfig(clientEnvironment.merging(["BFF_MODGUD_URL": url, "BFF_ROUTES": routes]) { $1 })
        #expect(config.modgudURL?.scheme == .http)
        #expect(config.cautions(openFileLimit: Self.openFiles).isEmpty)
    }

    @Test("a route upstream over plain http off the machine is refused, beside the route's other problems")
    func plainHTTPUpstream() throws {
        let routes = """
        [{"prefix":"/a/","upstream":"http://orders.internal:8080/","token":"user"},
         {"prefix":"/b/","upstream":"https://orders.internal/","token":"user"},
         {"prefix":"/c/","upstream":"http://127.0.0.1:8081/","token":"user"},
         {"prefix":"/d/","upstream":"http://status.internal/","token":"none","maxBodyBytes":-1}]
        """
        let found = try loadProblems(clientEnvironment.merging(["BFF_ROUTES": routes]) { $1 })
        #expect(Set(found.map(\.setting)) == ["BFF_ROUTES[0].upstream", "BFF_ROUTES[3].upstream", "BFF_ROUTES[3].maxBodyBytes"])
        #expect(found.count == 3)
        #expect(found.first?.message.hasPrefix("uses plain http to orders.internal, which is not a loopback host: "
            + "the access token sent with each request would cross the network unencrypted") == true)
        #expect(found.first { $0.setting == "BFF_ROUTES[3].upstream" }?.message.contains("requests and answers would cross") == true)
    }

    @Test("the upstream refusal names the file it came from")
    func upstreamFromFile() throws {
        let file = try TemporaryConfigFile(#"{"routes": [{"prefix": "/a/", "upstream": "http://a/", "token": "none"}]}"#)
        defer { file.remove() }
        let found = try loadProblems(file: file.path)
        #expect(found.map(\.setting) == ["BFF_ROUTES[0].upstream"])
        #expect(found.first?.message.hasSuffix("(routes in \(file.path))") == true)
    }

    @Test("BFF_ALLOW_HTTP_HOSTS accepts the hosts it names, and each host in use is a caution")
    func httpHostsOptOut() throws {
        let routes = """
        [{"prefix":"/a/","upstream":"http://Orders.Internal:8080/","token":"user"},
         {"prefix":"/b/","upstream":"http://10.0.0.5:8080/","token":"user"},
         {"prefix":"/c/","upstream":"http://[fd00:0::5]/","token":"none"}]
        """
        let config = try loadConfig(clientEnvironment.merging([
            "BFF_MODGUD_URL": "http://10.0.0.5/", "BFF_ROUTES": routes,
            "BFF_ALLOW_HTTP_HOSTS": " orders.INTERNAL, 10.0.0.5,[FD00::5],unused",
        ]) { $1 })
        #expect(config.allowedHTTPHosts == ["orders.internal", "10.0.0.5", "fd00::5", "unused"])
        #expect(config.description.contains("BFF_ALLOW_HTTP_HOSTS=orders.internal,10.0.0.5,fd00::5,unused"))
        let cautions = config.cautions(openFileLimit: Self.openFiles)
        #expect(cautions.count == 3, "\(cautions)")
        #expect(cautions.contains { $0.hasPrefix("BFF_MODGUD_URL, BFF_ROUTES[1].upstream reach 10.0.0.5 over plain http, "
            + "accepted only because BFF_ALLOW_HTTP_HOSTS names it") })
        #expect(cautions.contains { $0.hasPrefix("BFF_ROUTES[0].upstream reaches orders.internal over plain http") })
        #expect(cautions.contains { $0.hasPrefix("BFF_ROUTES[2].upstream reaches fd00::5 over plain http") })
        // Naming another host does not help.
        let other = try loadProblems(clientEnvironment.merging(["BFF_MODGUD_URL": "http://id.internal",
                                                                "BFF_ALLOW_HTTP_HOSTS": "api.internal"]) { $1 })
        #expect(other.map(\.setting) == ["BFF_MODGUD_URL"])
    }

    @Test("BFF_ALLOW_HTTP_HOSTS takes hosts only", arguments: ["http://modgud", "modgud:5080", "modgud,,api", "a/b", "[nothex]", "[10.0.0.5]"])
    func httpHostsRefused(list: String) throws {
        let found = try loadProblems(["BFF_ALLOW_HTTP_HOSTS": list])
        #expect(found.map(\.setting) == ["BFF_ALLOW_HTTP_HOSTS"])
        #expect(found.first?.message.contains("no scheme, port or path") == true)
    }

    @Test("route methods never include TRACE, TRACK or CONNECT", arguments: ["TRACE", "TRACK", "CONNECT", "trace"])
    func refusedMethods(method: String) throws {
        let routes = #"[{"prefix":"/a/","upstream":"https://a/","token":"none","methods":["GET","\#(method)"]}]"#
        let found = try loadProblems(["BFF_ROUTES": routes])
        #expect(found.map(\.setting) == ["BFF_ROUTES[0].methods"])
        #expect(found.first?.message.hasPrefix("\"\(method)\" is never proxied: TRACE and TRACK echo the request back") == true)
    }

    @Test("--check-config's validation reports every exposure at once, with the other problems")
    func allAtOnce() throws {
        let routes = """
        [{"prefix":"/a/","upstream":"http://orders.internal/","token":"user","methods":["GET","TRACE"]},
         {"prefix":"/b/","upstream":"http://catalog.internal/","token":"none","methods":["CONNECT"]}]
        """
        let found = try loadProblems(clientEnvironment.merging([
            "BFF_SESSION_COOKIE": "sid", "BFF_MODGUD_URL": "http://id.internal/", "BFF_ROUTES": routes,
            "BFF_LOOPS": "0",
        ]) { $1 })
        #expect(Set(found.map(\.setting)) == [
            "BFF_SESSION_COOKIE", "BFF_MODGUD_URL", "BFF_ROUTES[0].upstream", "BFF_ROUTES[0].methods",
            "BFF_ROUTES[1].upstream", "BFF_ROUTES[1].methods", "BFF_LOOPS",
        ], "\(ConfigErrors(found))")
        #expect(found.count == 7)
        #expect(!ConfigErrors(found).description.contains("s3cr3t-value"))
    }
}
