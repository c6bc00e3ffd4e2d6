import Core
import Foundation
import Testing
@testable import Configuration

@Suite("ConfigLoader")
struct ConfigLoaderTests {
    @Test("nothing set gives every documented default")
    func defaults() throws {
        let config = try loadConfig()
        #expect(config.listen.description == "127.0.0.1:8080")
        #expect(config.adminListen.description == "127.0.0.1:9090")
        #expect(config.publicOrigin.description == "http://localhost:8080")
        #expect(config.modgudURL == nil)
        #expect(config.client == nil)
        #expect(config.redis == RedisEndpoint(host: "127.0.0.1", port: 6379, database: 0))
        #expect(config.trustedProxies.isEmpty)
        #expect(config.routes.isEmpty)
        #expect((1...64).contains(config.eventLoops))
        #expect(config.eventLoops == min(64, ProcessInfo.processInfo.activeProcessorCount))
        #expect(config.maxConnections == 16384)
        #expect(config.maxHeaderBytes == 16384)
        #expect(config.maxBodyBytes == 65536)
        #expect(config.headerTimeout == .seconds(10))
        #expect(config.bodyTimeout == .seconds(30))
        #expect(config.idleTimeout == .seconds(60))
        #expect(config.writeTimeout == .seconds(30))
        #expect(config.shutdownTimeout == .seconds(15))
        #expect(config.logLevel == .info)
        #expect(config.accessLog)
        #expect(GatewayConfig.defaults.listen == config.listen)
    }

    @Test("environment beats file beats default")
    func precedence() throws {
        let file = try TemporaryConfigFile("""
        {"listen": "0.0.0.0:8000", "maxHeaderBytes": 4096, "accessLog": false, "logLevel": "debug",
         "trustedProxies": ["10.0.0.0/8", "192.0.2.1"]}
        """)
        defer { file.remove() }
        let config = try loadConfig(["BFF_LISTEN": "[::]:8081", "BFF_LOG_LEVEL": "WARNING", "PATH": "/bin"], file: file.path)
        #expect(config.listen.description == "[::]:8081")
        #expect(config.maxHeaderBytes == 4096)
        #expect(config.accessLog == false)
        #expect(config.logLevel == .warning)
        #expect(config.trustedProxies.map(\.description) == ["10.0.0.0/8", "192.0.2.1/32"])
        #expect(config.adminListen.description == "127.0.0.1:9090")
    }

    @Test("an empty or blank environment value counts as not set; values are trimmed")
    func emptyValues() throws {
        let file = try TemporaryConfigFile(#"{"maxConnections": 100}"#)
        defer { file.remove() }
        let config = try loadConfig(["BFF_MAX_CONNECTIONS": "  ", "BFF_LOOPS": " 3\n", "BFF_MODGUD_URL": ""], file: file.path)
        #expect(config.maxConnections == 100)
        #expect(config.eventLoops == 3)
        #expect(config.modgudURL == nil)
    }

    @Test("JSON null counts as not set; numbers may also be strings")
    func jsonForms() throws {
        let file = try TemporaryConfigFile(#"{"modgudUrl": null, "loops": "4", "idleTimeoutMs": 1500, "accessLog": "false"}"#)
        defer { file.remove() }
        let config = try loadConfig(file: file.path)
        #expect(config.modgudURL == nil)
        #expect(config.eventLoops == 4)
        #expect(config.idleTimeout == .milliseconds(1500))
        #expect(config.accessLog == false)
    }

    @Test("every problem is reported at once")
    func allProblemsAtOnce() throws {
        let environment = [
            "BFF_LISTEN": "8080",
            "BFF_ADMIN_LISTEN": "[::1]:99999",
            "BFF_PUBLIC_ORIGIN": "https://app.example.com/path",
            "BFF_MODGUD_URL": "ftp://id.example.com",
            "BFF_CLIENT_ID": "bff",
            "BFF_REDIS_URL": "http://redis:6379",
            "BFF_TRUSTED_PROXIES": "10.0.0.0/8, nonsense,10.0.0.0/33",
            "BFF_ROUTES": #"[{"prefix":"api","upstream":"https://a/","token":"user"}]"#,
            "BFF_LOOPS": "0",
            "BFF_MAX_CONNECTIONS": "many",
            "BFF_MAX_HEADER_BYTES": "100",
            "BFF_MAX_BODY_BYTES": "-1",
            "BFF_HEADER_TIMEOUT_MS": "1.5",
            "BFF_BODY_TIMEOUT_MS": "+100",
            "BFF_IDLE_TIMEOUT_MS": "99999999999",
            "BFF_WRITE_TIMEOUT_MS": "0x10",
            "BFF_SHUTDOWN_TIMEOUT_MS": "forever",
            "BFF_LOG_LEVEL": "verbose",
            "BFF_ACCESS_LOG": "yes",
            "BFF_MAX_HEADERS_BYTES": "1",
            "BFF_MODGUD_CA_FILE": "/nonexistent/ca.pem",
        ]
        let problems = try loadProblems(environment)
        let named = Set(problems.map(\.setting))
        let expected: Set<String> = [
            "BFF_LISTEN", "BFF_ADMIN_LISTEN", "BFF_PUBLIC_ORIGIN", "BFF_MODGUD_URL", "BFF_CLIENT_SECRET",
            "BFF_REDIS_URL", "BFF_TRUSTED_PROXIES", "BFF_ROUTES[0].prefix", "BFF_LOOPS", "BFF_MAX_CONNECTIONS",
            "BFF_MAX_HEADER_BYTES", "BFF_MAX_BODY_BYTES", "BFF_HEADER_TIMEOUT_MS", "BFF_BODY_TIMEOUT_MS",
            "BFF_IDLE_TIMEOUT_MS", "BFF_WRITE_TIMEOUT_MS", "BFF_SHUTDOWN_TIMEOUT_MS", "BFF_LOG_LEVEL",
            "BFF_ACCESS_LOG", "BFF_MAX_HEADERS_BYTES", "BFF_MODGUD_CA_FILE",
        ]
        #expect(named == expected, "\(ConfigErrors(problems))")
        #expect(problems.count == expected.count, "\(ConfigErrors(problems))")
        let text = ConfigErrors(problems).description
        #expect(text.hasPrefix("\(expected.count) configuration problems:"))
        #expect(text.contains("BFF_TRUSTED_PROXIES: \"nonsense\", \"10.0.0.0/33\" are not CIDR blocks"))
        #expect(text.contains("BFF_MAX_HEADERS_BYTES: is not a known setting; did you mean BFF_MAX_HEADER_BYTES?"))
        #expect(text.contains("BFF_MODGUD_CA_FILE: the file /nonexistent/ca.pem does not exist"))
        #expect(text.contains("BFF_LOG_LEVEL: \"verbose\" must be one of debug, info, warning, error"))
        #expect(text.contains("BFF_MAX_HEADER_BYTES: \"100\" must be an integer from 1024 to 1048576"))
    }

    @Test("unknown keys in the file are problems, with a hint")
    func unknownFileKeys() throws {
        let file = try TemporaryConfigFile(#"{"maxHeaderByte": 1, "BFF_LISTEN": "x", "frobnicate": true}"#)
        defer { file.remove() }
        let problems = try loadProblems(file: file.path)
        #expect(problems.count == 3)
        let byName = Dictionary(uniqueKeysWithValues: problems.map { ($0.setting, $0.message) })
        #expect(byName["maxHeaderByte"]?.hasSuffix("did you mean maxHeaderBytes?") == true)
        #expect(byName["BFF_LISTEN"]?.hasSuffix("did you mean listen?") == true)
        #expect(byName["frobnicate"]?.contains("is not a known setting (in \(file.path))") == true)
    }

    @Test("wrong JSON types name the key and the file", arguments: [
        (#"{"loops": 2.5}"#, "BFF_LOOPS", "must be an integer"),
        (#"{"loops": true}"#, "BFF_LOOPS", "must be an integer"),
        (#"{"accessLog": 1}"#, "BFF_ACCESS_LOG", "must be true or false"),
        (#"{"listen": 8080}"#, "BFF_LISTEN", "must be a string"),
        (#"{"trustedProxies": [1]}"#, "BFF_TRUSTED_PROXIES", "must be an array of strings"),
        (#"{"trustedProxies": ["10.0.0.0/8,fd00::/8"]}"#, "BFF_TRUSTED_PROXIES", "must not contain a comma"),
        (#"{"routes": {"prefix": "/api/"}}"#, "BFF_ROUTES", "must be an array"),
        (#"{"maxHeaderBytes": 100}"#, "BFF_MAX_HEADER_BYTES", "must be an integer from 1024 to 1048576 (maxHeaderBytes in"),
    ])
    func fileTypes(json: String, setting: String, fragment: String) throws {
        let file = try TemporaryConfigFile(json)
        defer { file.remove() }
        let problems = try loadProblems(file: file.path)
        #expect(problems.count == 1)
        #expect(problems.first?.setting == setting)
        #expect(problems.first?.message.contains(fragment) == true, "\(problems)")
        #expect(problems.first?.message.contains(file.path) == true)
    }

    @Test("an unreadable or malformed file is one problem for --config", arguments: [
        nil, "not json", "[1,2]", "\"text\"",
    ])
    func badFile(contents: String?) throws {
        var path = "/nonexistent/dir/config.json"
        var file: TemporaryConfigFile?
        if let contents {
            file = try TemporaryConfigFile(contents)
            path = file!.path
        }
        defer { file?.remove() }
        let problems = try loadProblems(file: path)
        #expect(problems.map(\.setting) == ["--config"])
    }

    @Test("client id and secret come together")
    func clientPair() throws {
        #expect(try loadProblems(["BFF_CLIENT_ID": "bff"]).map(\.setting) == ["BFF_CLIENT_SECRET"])
        #expect(try loadProblems(["BFF_CLIENT_SECRET": "x"]).map(\.setting) == ["BFF_CLIENT_ID"])
        let config = try loadConfig(clientEnvironment)
        #expect(config.client?.id == "bff")
        #expect(config.client?.secret.revealed == "s3cr3t-value")
        #expect(config.modgudURL?.description == "https://id.example.com/")
    }

    @Test("the two listeners may not share a port", arguments: [
        ("127.0.0.1:8080", "127.0.0.1:8080", true),
        ("0.0.0.0:8080", "127.0.0.1:8080", true),
        ("[::]:8080", "127.0.0.1:8080", true),
        ("[::1]:8080", "0.0.0.0:8080", false),
        ("127.0.0.1:8080", "127.0.0.2:8080", false),
        ("127.0.0.1:0", "127.0.0.1:0", false),
        ("localhost:9090", "127.0.0.1:9090", true),
    ])
    func listenerConflict(listen: String, admin: String, conflicts: Bool) throws {
        let result = ConfigLoader.load(environment: ["BFF_LISTEN": listen, "BFF_ADMIN_LISTEN": admin], configFile: nil)
        switch result {
        case .success: #expect(!conflicts)
        case .failure(let errors):
            #expect(conflicts)
            #expect(errors.errors.map(\.setting) == ["BFF_ADMIN_LISTEN"])
        }
    }

    @Test("trusted proxies: lists, blanks, bad items")
    func trustedProxies() throws {
        let config = try loadConfig(["BFF_TRUSTED_PROXIES": " 10.0.0.0/8 , fd00::/8,192.0.2.7, ::ffff:172.16.0.0/108"])
        #expect(config.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.7/32", "172.16.0.0/12"])
        #expect(config.trustedProxies.contains { $0.contains(IPAddress("10.1.1.1")!) })
        #expect(try loadProblems(["BFF_TRUSTED_PROXIES": "10.0.0.0/8,"]).map(\.setting) == ["BFF_TRUSTED_PROXIES"])
        #expect(try loadProblems(["BFF_TRUSTED_PROXIES": "example.com"]).first?.message.contains("\"example.com\"") == true)
    }

    @Test("loops: explicit values within 1…64")
    func loops() throws {
        #expect(try loadConfig(["BFF_LOOPS": "64"]).eventLoops == 64)
        #expect(try loadProblems(["BFF_LOOPS": "65"]).map(\.setting) == ["BFF_LOOPS"])
    }

    @Test(arguments: [("0", true), ("100", true), ("10000", true), ("1", false), ("99", false), ("10001", false), ("-1", false)])
    func sessionCacheStalenessIsOffOrAtLeast100Milliseconds(value: String, valid: Bool) throws {
        switch ConfigLoader.load(environment: ["BFF_SESSION_CACHE_STALENESS_MS": value], configFile: nil) {
        case .success(let config):
            #expect(valid)
            #expect(config.sessionCacheStaleness == .milliseconds(Int(value)!))
        case .failure(let errors):
            #expect(!valid)
            #expect(errors.errors.map(\.setting) == ["BFF_SESSION_CACHE_STALENESS_MS"])
        }
    }
}
