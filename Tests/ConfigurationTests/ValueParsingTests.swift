import Core
import Testing
@testable import Configuration

@Suite("Listen addresses")
struct ListenAddressTests {
    @Test("accepted forms", arguments: [
        ("127.0.0.1:8080", "127.0.0.1:8080"),
        ("0.0.0.0:80", "0.0.0.0:80"),
        ("localhost:8080", "127.0.0.1:8080"),
        ("LOCALHOST:1", "127.0.0.1:1"),
        ("[::1]:8080", "[::1]:8080"),
        ("[::]:443", "[::]:443"),
        ("[2001:DB8::1]:65535", "[2001:db8::1]:65535"),
        ("[::ffff:10.0.0.1]:80", "10.0.0.1:80"),
        ("127.0.0.1:0", "127.0.0.1:0"),
    ])
    func accepted(text: String, printed: String) {
        #expect(ListenAddress(text)?.description == printed)
    }

    @Test("refused forms", arguments: [
        "", "8080", ":8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80",
        "127.0.0.1:80x", "::1:8080", "[::1]8080", "[::1]", "[127.0.0.1]:80", "example.com:80", "[::1:80",
        "1.2.3.4:123456",
    ])
    func refused(text: String) {
        #expect(ListenAddress(text) == nil)
    }

    @Test("an unbracketed IPv6 address gets a hint")
    func ipv6Hint() {
        guard case .failure(let problem) = ListenAddress.parse("::1:8080") else {
            Issue.record("accepted")
            return
        }
        #expect(problem.message.contains("brackets"))
    }
}

@Suite("HTTP URLs and the public origin")
struct URLTests {
    @Test("URLs are normalised", arguments: [
        ("https://id.example.com", "https://id.example.com/", 443),
        ("HTTPS://ID.Example.COM:443/", "https://id.example.com/", 443),
        ("http://modgud:8080/base/", "http://modgud:8080/base/", 8080),
        ("http://[::1]:5000/x", "http://[::1]:5000/x", 5000),
        ("http://10.0.0.1/a%20b/", "http://10.0.0.1/a%20b/", 80),
        ("http://my_service.internal:81", "http://my_service.internal:81/", 81),
    ])
    func urls(text: String, printed: String, port: UInt16) {
        let url = HTTPURL(text)
        #expect(url?.description == printed)
        #expect(url?.port == port)
    }

    @Test("URLs refused", arguments: [
        "", "id.example.com", "ftp://x/", "https://", "https://:443/", "https://user:pw@id.example.com/",
        "https://id.example.com/?q=1", "https://id.example.com/#f", "https://id.example.com:0/",
        "https://id.example.com:99999/", "https://id..example.com/", "https://id example.com/",
        "https://id.example.com/a b", "https://[nothex]/", "https://[::1]x/", "//id.example.com/",
    ])
    func urlsRefused(text: String) {
        #expect(HTTPURL(text) == nil)
    }

    @Test("origins", arguments: [
        ("https://app.example.com", "https://app.example.com"),
        ("https://app.example.com/", "https://app.example.com"),
        ("https://APP.example.com:443", "https://app.example.com"),
        ("https://app.example.com:8443", "https://app.example.com:8443"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("http://app.localhost", "http://app.localhost"),
        ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
        ("http://[::1]:3000", "http://[::1]:3000"),
    ])
    func origins(text: String, serialized: String) {
        let origin = WebOrigin(text)
        #expect(origin?.description == serialized)
        #expect(origin?.matches(serialized) == true)
        #expect(origin?.matches(serialized.uppercased()) == true)
        #expect(origin?.matches(serialized + "/x") == false)
    }

    @Test("origins refused", arguments: [
        "https://app.example.com/app", "https://app.example.com/?x", "http://app.example.com",
        "http://10.0.0.5:8080", "app.example.com", "https://user@app.example.com",
    ])
    func originsRefused(text: String) {
        #expect(WebOrigin(text) == nil)
    }
}

@Suite("Redis URL")
struct RedisURLTests {
    @Test("parses host, port, password and database")
    func parses() throws {
        let plain = try #require(try? RedisEndpoint.parse("redis://127.0.0.1:6379/0").get())
        #expect(plain == RedisEndpoint(host: "127.0.0.1", port: 6379, database: 0))
        let full = try #require(try? RedisEndpoint.parse("redis://:p%40ss%2Fw0rd@Redis.Internal:6380/3").get())
        #expect(full.host == "redis.internal")
        #expect(full.port == 6380)
        #expect(full.database == 3)
        #expect(full.username == nil)
        #expect(full.password?.revealed == "p@ss/w0rd")
        let raw = try #require(try? RedisEndpoint.parse("redis://app:pa@ss@[::1]").get())
        #expect(raw.username == "app")
        #expect(raw.password?.revealed == "pa@ss")
        #expect(raw.host == "::1" && raw.port == 6379 && raw.database == 0)
        #expect(raw.description == "redis://app:<redacted>@[::1]:6379/0")
        #expect(try RedisEndpoint.parse("redis://cache/").get().database == 0)
    }

    @Test("the password never appears in print")
    func redaction() throws {
        let endpoint = try RedisEndpoint.parse("redis://:hunter2@cache:6379/1").get()
        #expect(endpoint.description == "redis://:<redacted>@cache:6379/1")
        #expect(!"\(endpoint)".contains("hunter2"))
        var dumped = ""
        dump(endpoint, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }

    @Test("refused", arguments: [
        "", "cache:6379", "http://cache:6379", "rediss:/cache:6379", "redis://", "redis://:6379",
        "redis://cache:0", "redis://cache:70000", "redis://cache:6379/x", "redis://cache:6379/-1",
        "redis://cache:6379/99999999", "redis://password@cache", "redis://:@cache", "redis://:%zz@cache",
        "redis://cache:6379/0?timeout=1", "redis://[::1:6379", "redis://ca che",
    ])
    func refused(text: String) {
        #expect((try? RedisEndpoint.parse(text).get()) == nil)
    }

    @Test("errors about the URL never quote it")
    func errorsDoNotQuote() throws {
        for bad in ["redis://:hunter2@", "redis://:hunter2@cache:99999", "rediss://:hunter2@a,b", "xx://:hunter2@h"] {
            let problems = try loadProblems(["BFF_REDIS_URL": bad])
            #expect(problems.map(\.setting) == ["BFF_REDIS_URL"])
            #expect(!problems.description.contains("hunter2"))
        }
    }
}
