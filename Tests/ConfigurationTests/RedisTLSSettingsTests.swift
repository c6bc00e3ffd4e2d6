import Testing
@testable import Configuration

@Suite("Redis over TLS and WAIT: BFF_REDIS_CA_FILE, _CERT_FILE, _KEY_FILE, _TLS_SERVER_NAME, _WAIT_*")
struct RedisTLSSettingsTests {
    let password = redisPasswordMarker
    static let tlsSettings = ["BFF_REDIS_CA_FILE", "BFF_REDIS_CERT_FILE", "BFF_REDIS_KEY_FILE", "BFF_REDIS_TLS_SERVER_NAME"]

    @Test("every TLS file, the server name and WAIT, in the endpoint and the summary")
    func complete() throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let ca = try files.write("ca.pem", "-----BEGIN CERTIFICATE-----\n")
        let certificate = try files.write("client.pem", "-----BEGIN CERTIFICATE-----\n")
        let key = try files.write("client.key", "-----BEGIN PRIVATE KEY-----\n")
        let config = try loadConfig(["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": "rediss://app:\(password)@c1:6380,c2:6380",
                                     "BFF_REDIS_CA_FILE": ca, "BFF_REDIS_CERT_FILE": certificate, "BFF_REDIS_KEY_FILE": key,
                                     "BFF_REDIS_TLS_SERVER_NAME": "Redis.Internal",
                                     "BFF_REDIS_WAIT_REPLICAS": "1", "BFF_REDIS_WAIT_TIMEOUT_MS": "250"])
        #expect(config.redis.tls == RedisTLSFiles(caFile: ca, certificateFile: certificate, keyFile: key,
                                                  serverName: "redis.internal"))
        #expect(config.redis.waitReplicas == 1 && config.redis.waitTimeout == .milliseconds(250))
        let summary = Dictionary(uniqueKeysWithValues: config.redactedSummary())
        #expect(summary["BFF_REDIS_URL"] == "rediss://app:<redacted>@c1:6380,c2:6380/0")
        #expect(summary["BFF_REDIS_MODE"] == "cluster")
        #expect(summary["BFF_REDIS_CA_FILE"] == ca && summary["BFF_REDIS_CERT_FILE"] == certificate)
        #expect(summary["BFF_REDIS_KEY_FILE"] == key && summary["BFF_REDIS_TLS_SERVER_NAME"] == "redis.internal")
        #expect(summary["BFF_REDIS_WAIT_REPLICAS"] == "1" && summary["BFF_REDIS_WAIT_TIMEOUT_MS"] == "250")
        #expect(!config.description.contains(password))
    }

    @Test("each TLS setting is refused with a redis:// URL", arguments: tlsSettings)
    func tlsSettingWithoutTLS(setting: String) throws {
        let files = try RedisFiles()
        defer { files.remove() }
        var environment = ["BFF_REDIS_URL": "redis://:\(password)@cache",
                           setting: setting == "BFF_REDIS_TLS_SERVER_NAME" ? "cache" : try files.write("file.pem", "x")]
        if setting == "BFF_REDIS_CERT_FILE" { environment["BFF_REDIS_KEY_FILE"] = try files.write("key.pem", "x") }
        if setting == "BFF_REDIS_KEY_FILE" { environment["BFF_REDIS_CERT_FILE"] = try files.write("cert.pem", "x") }
        let problems = try loadProblems(environment)
        #expect(problems.contains { $0.setting == setting })
        for problem in problems { #expect(problem.message.contains("rediss://")) }
        #expect(!ConfigErrors(problems).description.contains(password))
    }

    @Test("a TLS file that does not exist is refused", arguments: ["BFF_REDIS_CA_FILE", "BFF_REDIS_CERT_FILE", "BFF_REDIS_KEY_FILE"])
    func missingFile(setting: String) throws {
        let files = try RedisFiles()
        defer { files.remove() }
        var environment = ["BFF_REDIS_URL": "rediss://:\(password)@cache", setting: files.missing("absent.pem")]
        if setting == "BFF_REDIS_CERT_FILE" { environment["BFF_REDIS_KEY_FILE"] = try files.write("key.pem", "x") }
        if setting == "BFF_REDIS_KEY_FILE" { environment["BFF_REDIS_CERT_FILE"] = try files.write("cert.pem", "x") }
        try expectRedisProblem(environment, setting: setting, mentions: ["absent.pem", "does not exist"])
    }

    @Test("a client certificate needs its key, and a key its certificate", arguments: [
        ("BFF_REDIS_CERT_FILE", "BFF_REDIS_KEY_FILE"), ("BFF_REDIS_KEY_FILE", "BFF_REDIS_CERT_FILE"),
    ])
    func certificateAndKey(given: String, missing: String) throws {
        let files = try RedisFiles()
        defer { files.remove() }
        try expectRedisProblem(["BFF_REDIS_URL": "rediss://:\(password)@cache", given: try files.write("one.pem", "x")],
                               setting: missing, mentions: [given])
    }

    @Test("the server name: a host name in lower case or an IP address in canonical form", arguments: [
        ("redis.internal", "redis.internal"), ("10.0.0.7", "10.0.0.7"), ("FD00:0::7", "fd00::7"),
    ])
    func serverName(value: String, expected: String) throws {
        let redis = try loadConfig(["BFF_REDIS_URL": "rediss://10.0.0.7", "BFF_REDIS_TLS_SERVER_NAME": value]).redis
        #expect(redis.tls?.serverName == expected)
    }

    @Test("a server name that is no host is refused", arguments: ["[::1]", "redis.internal:6380", "a b", "https://redis"])
    func badServerName(value: String) throws {
        try expectRedisProblem(["BFF_REDIS_URL": "rediss://cache", "BFF_REDIS_TLS_SERVER_NAME": value],
                               setting: "BFF_REDIS_TLS_SERVER_NAME", mentions: ["host name"])
    }

    @Test("WAIT's bounds", arguments: [("BFF_REDIS_WAIT_REPLICAS", "17"), ("BFF_REDIS_WAIT_REPLICAS", "-1"),
                                       ("BFF_REDIS_WAIT_TIMEOUT_MS", "0"), ("BFF_REDIS_WAIT_TIMEOUT_MS", "251")])
    func waitBounds(setting: String, value: String) throws {
        try expectRedisProblem([setting: value], setting: setting, mentions: ["integer from"])
    }

    @Test("WAIT in any mode, at its limits")
    func waitAnyMode() throws {
        let single = try loadConfig(["BFF_REDIS_WAIT_REPLICAS": "16", "BFF_REDIS_WAIT_TIMEOUT_MS": "250"]).redis
        #expect(single.waitReplicas == 16 && single.waitTimeout == .milliseconds(250))
        let cluster = try loadConfig(["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": "redis://c1", "BFF_REDIS_WAIT_REPLICAS": "1",
                                      "BFF_REDIS_WAIT_TIMEOUT_MS": "1"]).redis
        #expect(cluster.waitReplicas == 1 && cluster.waitTimeout == .milliseconds(1))
    }

    @Test("no problem of any Redis setting repeats a password of the URL or a file")
    func problemsAreClean() throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let file = try files.write("password", password)
        let environments: [[String: String]] = [
            ["BFF_REDIS_URL": "redis://:\(password)@a,b"],
            ["BFF_REDIS_URL": "rediss://u:\(password)@a:0"],
            ["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": "redis://:\(password)@a/9"],
            ["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_URL": "redis://:\(password)@a"],
            ["BFF_REDIS_URL": "redis://:\(password)@a", "BFF_REDIS_PASSWORD_FILE": file],
            ["BFF_REDIS_URL": "redis://:\(password)@a", "BFF_REDIS_CA_FILE": file],
            ["BFF_REDIS_URL": "redis://:\(password)@a", "BFF_REDIS_SENTINEL_PASSWORD_FILE": file],
            ["BFF_REDIS_MODE": "other", "BFF_REDIS_URL": "redis://:\(password)@a"],
        ]
        for environment in environments {
            let problems = try loadProblems(environment)
            #expect(!problems.isEmpty)
            #expect(!ConfigErrors(problems).description.contains(password), "\(environment.keys.sorted())")
        }
    }
}
