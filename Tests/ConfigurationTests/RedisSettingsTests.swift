import Testing
@testable import Configuration

@Suite("Redis passwords from files and the Sentinel settings")
struct RedisSettingsTests {
    let password = redisPasswordMarker

    @Test("BFF_REDIS_PASSWORD_FILE: the password without one trailing newline", arguments: [
        ("\(redisPasswordMarker)", redisPasswordMarker), ("\(redisPasswordMarker)\n", redisPasswordMarker),
        ("\(redisPasswordMarker)\r\n", redisPasswordMarker), ("\(redisPasswordMarker)\n\n", "\(redisPasswordMarker)\n"),
        (" \(redisPasswordMarker) \n", " \(redisPasswordMarker) "),
    ])
    func passwordFile(contents: String, expected: String) throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let path = try files.write("password", contents)
        let config = try loadConfig(["BFF_REDIS_PASSWORD_FILE": path, "BFF_REDIS_URL": "redis://cache:6379/1"])
        #expect(config.redis.password?.revealed == expected)
        #expect(config.redisPasswordFile == path)
        let summary = Dictionary(uniqueKeysWithValues: config.redactedSummary())
        #expect(summary["BFF_REDIS_PASSWORD_FILE"] == path)
        #expect(summary["BFF_REDIS_URL"] == "redis://:<redacted>@cache:6379/1")
        #expect(!config.description.contains(password))
    }

    @Test("a user in the URL takes its password from the file")
    func userWithPasswordFile() throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let path = try files.write("password", password + "\n")
        let redis = try loadConfig(["BFF_REDIS_PASSWORD_FILE": path, "BFF_REDIS_URL": "rediss://app@cache"]).redis
        #expect(redis.username == "app" && redis.password?.revealed == password)
        #expect(redis.description == "rediss://app:<redacted>@cache:6379/0")
    }

    @Test("a user without a password and no password file is refused, pointing to the file")
    func userWithoutPassword() throws {
        try expectRedisProblem(["BFF_REDIS_URL": "redis://app@cache"], setting: "BFF_REDIS_URL",
                               mentions: ["BFF_REDIS_PASSWORD_FILE"])
    }

    @Test("a password file next to a password in the URL is refused")
    func passwordTwice() throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let path = try files.write("password", "other-password\n")
        let message = try expectRedisProblem(["BFF_REDIS_PASSWORD_FILE": path, "BFF_REDIS_URL": "redis://:\(password)@cache"],
                                             setting: "BFF_REDIS_PASSWORD_FILE", mentions: ["BFF_REDIS_URL"])
        #expect(!message.contains("other-password"))
    }

    @Test("a password file that is missing or empty is refused, without its contents",
          arguments: ["BFF_REDIS_PASSWORD_FILE", "BFF_REDIS_SENTINEL_PASSWORD_FILE"])
    func badPasswordFile(setting: String) throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let base = setting == "BFF_REDIS_PASSWORD_FILE" ? [:]
            : ["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_SENTINEL_MASTER": "bff", "BFF_REDIS_URL": "redis://s1,s2"]
        let missing = files.missing("none")
        try expectRedisProblem(base.merging([setting: missing]) { $1 }, setting: setting, mentions: [missing, "does not exist"])
        for empty in ["", "\n"] {
            let path = try files.write("empty", empty)
            try expectRedisProblem(base.merging([setting: path]) { $1 }, setting: setting, mentions: ["is empty"])
        }
    }

    @Test("sentinel mode needs the master's name")
    func masterRequired() throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_URL": "redis://:\(password)@s1,s2"],
                               setting: "BFF_REDIS_SENTINEL_MASTER", mentions: ["BFF_REDIS_MODE", "sentinel"])
    }

    @Test("the sentinel settings are refused in the other modes", arguments: [
        ("single", "BFF_REDIS_SENTINEL_MASTER"), ("cluster", "BFF_REDIS_SENTINEL_MASTER"),
        ("single", "BFF_REDIS_SENTINEL_USERNAME"), ("cluster", "BFF_REDIS_SENTINEL_PASSWORD_FILE"),
    ])
    func sentinelSettingsElsewhere(mode: String, setting: String) throws {
        let files = try RedisFiles()
        defer { files.remove() }
        var environment = ["BFF_REDIS_MODE": mode, "BFF_REDIS_URL": "redis://:\(password)@r1", setting: "bff"]
        if setting.hasSuffix("_FILE") { environment[setting] = try files.write("sentinel-password", "x\n") }
        if setting == "BFF_REDIS_SENTINEL_USERNAME" {
            // The user's own rule (it needs a password) is not the point here.
            environment["BFF_REDIS_SENTINEL_PASSWORD_FILE"] = try files.write("sentinel-password", "x\n")
            let problems = try loadProblems(environment)
            #expect(Set(problems.map(\.setting)) == [setting, "BFF_REDIS_SENTINEL_PASSWORD_FILE"])
            #expect(problems.allSatisfy { $0.message.contains("only for BFF_REDIS_MODE sentinel") })
            return
        }
        try expectRedisProblem(environment, setting: setting, mentions: ["only for BFF_REDIS_MODE sentinel", mode])
    }

    @Test("the sentinels' user and password")
    func sentinelCredentials() throws {
        let files = try RedisFiles()
        defer { files.remove() }
        let path = try files.write("sentinel-password", "sentinel-\(password)\n")
        let config = try loadConfig(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_URL": "redis://app:\(password)@s1,s2,s3/0",
                                     "BFF_REDIS_SENTINEL_MASTER": "bff", "BFF_REDIS_SENTINEL_USERNAME": "watcher",
                                     "BFF_REDIS_SENTINEL_PASSWORD_FILE": path])
        #expect(config.redis.sentinelUsername == "watcher")
        #expect(config.redis.sentinelPassword?.revealed == "sentinel-\(password)")
        #expect(config.redis.password?.revealed == password)
        #expect(config.redisSentinelPasswordFile == path)
        let summary = Dictionary(uniqueKeysWithValues: config.redactedSummary())
        #expect(summary["BFF_REDIS_MODE"] == "sentinel")
        #expect(summary["BFF_REDIS_SENTINEL_MASTER"] == "bff")
        #expect(summary["BFF_REDIS_SENTINEL_USERNAME"] == "watcher")
        #expect(summary["BFF_REDIS_SENTINEL_PASSWORD_FILE"] == path)
        #expect(!config.description.contains(password))
        var dumped = ""
        dump(config, to: &dumped)
        #expect(!dumped.contains(password) && !"\(config.redis)".contains(password))
    }

    @Test("a sentinel user without a password file is refused")
    func sentinelUserWithoutPassword() throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_URL": "redis://s1", "BFF_REDIS_SENTINEL_MASTER": "bff",
                                "BFF_REDIS_SENTINEL_USERNAME": "watcher"],
                               setting: "BFF_REDIS_SENTINEL_USERNAME", mentions: ["BFF_REDIS_SENTINEL_PASSWORD_FILE"])
    }

    @Test("a master name with a blank is refused")
    func masterName() throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_URL": "redis://s1", "BFF_REDIS_SENTINEL_MASTER": "my master"],
                               setting: "BFF_REDIS_SENTINEL_MASTER", mentions: ["blanks"])
    }
}
