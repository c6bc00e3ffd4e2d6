import Core

extension ConfigLoader {
    /// BFF_REDIS_MODE, BFF_REDIS_URL and the settings that go with them
    /// (passwords from files, Sentinel, TLS, `WAIT`): the endpoint, nil when
    /// the URL is invalid, and how to apply the password files' paths. Every
    /// problem is recorded; none quotes the URL or a file's contents.
    static func readRedisSettings(_ reader: inout SettingReader)
        -> (endpoint: RedisEndpoint?, apply: (inout GatewayConfig) -> Void) {
        let mode = reader.choice(.redisMode).flatMap(RedisMode.init(rawValue:))
        let passwordInFile = reader.isGiven(.redisPasswordFile)
        let parsed = reader.value(.redisURL) { RedisEndpoint.parse($0, mode: mode, passwordInFile: passwordInFile) }
        let password = reader.value(.redisPasswordFile, readSecretFile)
        let master = reader.value(.redisSentinelMaster, parseRedisName)
        let sentinelUsername = reader.value(.redisSentinelUsername, parseRedisName)
        let sentinelPassword = reader.value(.redisSentinelPasswordFile, readSecretFile)
        let caFile = reader.value(.redisCAFile, readableFile)
        let certificateFile = reader.value(.redisCertFile, readableFile)
        let keyFile = reader.value(.redisKeyFile, readableFile)
        let serverName = reader.value(.redisTLSServerName, parseServerName)
        let waitReplicas = reader.integer(.redisWaitReplicas)
        let waitTimeout = reader.integer(.redisWaitTimeout)

        if parsed?.password != nil, passwordInFile {
            reader.report(.redisPasswordFile, "must not be set when BFF_REDIS_URL holds a password; give the password in one place")
        }
        if let mode { checkSentinelSettings(mode: mode, &reader) }
        if let parsed { checkTLSSettings(tls: parsed.tls != nil, &reader) }
        if parsed.map({ $0.tls != nil }) ?? true, reader.isGiven(.redisCertFile) != reader.isGiven(.redisKeyFile) {
            let (missing, given) = reader.isGiven(.redisCertFile) ? (SettingDefinition.redisKeyFile, SettingDefinition.redisCertFile)
                : (.redisCertFile, .redisKeyFile)
            reader.report(missing, "is required when \(given.name) is set")
        }

        let passwordFile = reader.text(.redisPasswordFile)?.text
        let sentinelPasswordFile = reader.text(.redisSentinelPasswordFile)?.text
        let apply: (inout GatewayConfig) -> Void = { config in
            config.redisPasswordFile = passwordFile
            config.redisSentinelPasswordFile = sentinelPasswordFile
        }
        guard var endpoint = parsed else { return (nil, apply) }
        if let password { endpoint.password = password }
        endpoint.sentinelMaster = master
        endpoint.sentinelUsername = sentinelUsername
        endpoint.sentinelPassword = sentinelPassword
        if endpoint.tls != nil {
            endpoint.tls = RedisTLSFiles(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile, serverName: serverName)
        }
        if let waitReplicas { endpoint.waitReplicas = waitReplicas }
        if let waitTimeout { endpoint.waitTimeout = .milliseconds(waitTimeout) }
        return (endpoint, apply)
    }

    /// The master's name is required in sentinel mode; every sentinel
    /// setting is refused in the others.
    private static func checkSentinelSettings(mode: RedisMode, _ reader: inout SettingReader) {
        let sentinelSettings: [SettingDefinition] = [.redisSentinelMaster, .redisSentinelUsername, .redisSentinelPasswordFile]
        guard mode == .sentinel else {
            for setting in sentinelSettings where reader.isGiven(setting) {
                reader.report(setting, "is only for BFF_REDIS_MODE sentinel (BFF_REDIS_MODE is \(mode.rawValue))")
            }
            return
        }
        if !reader.isGiven(.redisSentinelMaster) {
            reader.report(.redisSentinelMaster, "is required when BFF_REDIS_MODE is sentinel")
        }
        if reader.isGiven(.redisSentinelUsername), !reader.isGiven(.redisSentinelPasswordFile) {
            reader.report(.redisSentinelUsername, "needs BFF_REDIS_SENTINEL_PASSWORD_FILE (a user signs in with a password)")
        }
    }

    /// The TLS settings only go with a `rediss://` URL.
    private static func checkTLSSettings(tls: Bool, _ reader: inout SettingReader) {
        guard !tls else { return }
        for setting in [SettingDefinition.redisCAFile, .redisCertFile, .redisKeyFile, .redisTLSServerName] where reader.isGiven(setting) {
            reader.report(setting, "is only for TLS: BFF_REDIS_URL must start with rediss://")
        }
    }

    /// A file that exists and can be read, by its path.
    static func readableFile(_ path: String) -> Result<String, ValueProblem> {
        Host.contents(of: path, limit: 16 << 20).map { _ in path }.mapError { ValueProblem("the file \(path) \($0.phrase)") }
    }

    /// A password kept in a file: its UTF-8 text without one trailing
    /// newline (`\n` or `\r\n`), not empty. The problem never quotes it.
    static func readSecretFile(_ path: String) -> Result<Secret, ValueProblem> {
        var bytes: [UInt8]
        switch Host.contents(of: path, limit: 64 << 10) {
        case .success(let contents): bytes = contents
        case .failure(let problem): return .failure(ValueProblem("the file \(path) \(problem.phrase)"))
        }
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard !bytes.isEmpty else { return .failure(ValueProblem("the file \(path) is empty")) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ValueProblem("the file \(path) is not UTF-8 text"))
        }
        return .success(Secret(text))
    }

    /// A master or user name at the sentinels: visible characters, no blanks.
    static func parseRedisName(_ text: String) -> Result<String, ValueProblem> {
        text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F })
            ? .success(text) : .failure(ValueProblem("must be a name without blanks or control characters"))
    }

    /// A host name (lower-cased) or an IP address (canonical form).
    static func parseServerName(_ text: String) -> Result<String, ValueProblem> {
        if let address = IPAddress(text) { return .success(address.description) }
        guard Lexical.isHostName(text[...]) else {
            return .failure(ValueProblem("must be a host name or an IP address, without brackets or port"))
        }
        return .success(text.lowercased())
    }
}
