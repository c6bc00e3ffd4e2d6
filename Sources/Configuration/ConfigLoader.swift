import Core

/// Builds a ``GatewayConfig`` from the environment and an optional JSON
/// file (`--config FILE`): environment first, then the file, then the
/// defaults in ``SettingDefinition/all``. Every problem is reported at
/// once, unknown `BFF_` variables and unknown file keys included.
public enum ConfigLoader {
    /// Loads and validates. `environment` is usually
    /// `ProcessInfo.processInfo.environment`; only `BFF_` names are read.
    public static func load(environment: [String: String], configFile: String?) -> Result<GatewayConfig, ConfigErrors> {
        var reader = SettingReader()
        if let configFile { reader.loadFile(configFile) }
        reader.loadEnvironment(environment)

        let listen = reader.value(.listen, ListenAddress.parse)
        let adminListen = reader.value(.adminListen, ListenAddress.parse)
        let publicOrigin = reader.value(.publicOrigin, WebOrigin.parse)
        let modgudURL = reader.value(.modgudURL, HTTPURL.parse)
        let clientID = reader.value(.clientID) { Result<String, ValueProblem>.success($0) }
        let clientSecret = reader.value(.clientSecret) { Result<Secret, ValueProblem>.success(Secret($0)) }
        let (redis, redisFiles) = readRedisSettings(&reader)
        let trustedProxies = reader.value(.trustedProxies, parseCIDRList)
        let allowedHTTPHosts = reader.value(.allowHTTPHosts, parseHostList)
        let routes = readRoutes(allowedHTTPHosts: allowedHTTPHosts, &reader)
        let loops = reader.isGiven(.loops) ? reader.integer(.loops) : min(64, Host.usableProcessorCount)
        let maxConnections = reader.integer(.maxConnections)
        let maxHeaderBytes = reader.integer(.maxHeaderBytes)
        let maxBodyBytes = reader.integer(.maxBodyBytes)
        let headerTimeout = reader.integer(.headerTimeout)
        let bodyTimeout = reader.integer(.bodyTimeout)
        let idleTimeout = reader.integer(.idleTimeout)
        let writeTimeout = reader.integer(.writeTimeout)
        let shutdownTimeout = reader.integer(.shutdownTimeout)
        let logLevel = reader.choice(.logLevel).flatMap(LogLevelSetting.init(rawValue:))
        let accessLog = reader.boolean(.accessLog)
        let signIn = readSignInSettings(&reader)
        let limits = readLimitSettings(&reader)
        let codeFlow = readCodeFlowSettings(&reader)
        let appLogin = readAppLoginSettings(&reader)
        let crossDevice = readCrossDeviceSettings(&reader)
        let audit = readAuditSettings(&reader)
        let staticFiles = readStaticSettings(&reader)
        let listenFile = readListenSettings(&reader, listen: listen, adminListen: adminListen)

        if let listen, let adminListen, listen.conflicts(with: adminListen) {
            reader.report(.adminListen, "\(adminListen) would share \(listen.socketPath == nil ? "a port" : "the socket") "
                + "with BFF_LISTEN (\(listen))")
        }
        let client = credentials(clientID, clientSecret, id: .clientID, secret: .clientSecret, &reader)
        if let routes {
            checkRoutesHaveModgud(routes, &reader)
            checkAudiences(routes, &reader)
        }
        if let modgudURL, let allowedHTTPHosts {
            checkPlainHTTP(modgudURL: modgudURL, allowed: allowedHTTPHosts, &reader)
        }

        guard reader.errors.isEmpty, let listen, let adminListen, let publicOrigin, let redis, let trustedProxies,
              let routes, let allowedHTTPHosts, let loops, let maxConnections, let maxHeaderBytes, let maxBodyBytes,
              let headerTimeout, let bodyTimeout, let idleTimeout, let writeTimeout, let shutdownTimeout, let logLevel, let accessLog
        else {
            return .failure(ConfigErrors(reader.errors))
        }
        var config = GatewayConfig(
            listen: listen, adminListen: adminListen, publicOrigin: publicOrigin, modgudURL: modgudURL,
            client: client, redis: redis, trustedProxies: trustedProxies, routes: routes, eventLoops: loops,
            maxConnections: maxConnections, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes,
            headerTimeout: .milliseconds(headerTimeout), bodyTimeout: .milliseconds(bodyTimeout),
            idleTimeout: .milliseconds(idleTimeout), writeTimeout: .milliseconds(writeTimeout),
            shutdownTimeout: .milliseconds(shutdownTimeout), logLevel: logLevel, accessLog: accessLog)
        config.allowedHTTPHosts = allowedHTTPHosts
        redisFiles(&config)
        signIn(&config)
        limits(&config)
        codeFlow(&config)
        appLogin(&config)
        crossDevice(&config)
        audit(&config)
        staticFiles(&config)
        listenFile(&config)
        return .success(config)
    }

    /// The sign-in and session settings; returns how to apply them.
    static func readSignInSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let forwarded = reader.choice(.forwardedHeader)
        let timeout = reader.integer(.modgudTimeout)
        // Read once here, so a typo fails `--check-config`, not every call to Modgud.
        let caFile = reader.value(.modgudCAFile, readableFile)
        let scopes = reader.value(.scopes) { text -> Result<String, ValueProblem> in
            text.split(separator: " ").isEmpty ? .failure(ValueProblem("must name at least one scope")) : .success(text)
        }
        let resource = reader.value(.resource) { Result<String, ValueProblem>.success($0) }
        let cookie = reader.value(.sessionCookie) { text -> Result<String, ValueProblem> in
            text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains($0) }
                ? .success(text) : .failure(ValueProblem("must be a cookie name (a token)"))
        }
        let insecureCookie = reader.boolean(.allowInsecureCookieName)
        if let cookie, insecureCookie == false {
            checkCookiePrefix(cookie, &reader)
        }
        let machineID = reader.value(.machineClientID) { Result<String, ValueProblem>.success($0) }
        let machineSecret = reader.value(.machineClientSecret) { Result<Secret, ValueProblem>.success(Secret($0)) }
        let machine = credentials(machineID, machineSecret, id: .machineClientID, secret: .machineClientSecret, &reader)
        let skew = reader.integer(.refreshSkew)
        let leeway = reader.integer(.refreshReuseLeeway)
        let upstreamTimeout = reader.integer(.upstreamTimeout)
        let idle = reader.integer(.sessionIdleTimeout)
        let absolute = reader.integer(.sessionAbsoluteTimeout)
        let staleness = reader.integer(.sessionCacheStaleness)
        if let staleness, staleness > 0, staleness < 100 {
            // A heartbeat goes out every quarter of it: below 100 ms that is
            // Redis traffic for nothing.
            reader.report(.sessionCacheStaleness, "must be 0 (off) or at least 100")
        }
        if let idle, let absolute, idle > absolute {
            reader.report(.sessionIdleTimeout, "must not exceed BFF_SESSION_ABSOLUTE_TIMEOUT_S")
        }
        return { config in
            if let forwarded { config.forwardedHeader = forwarded }
            if let timeout { config.modgudTimeout = .milliseconds(timeout) }
            config.modgudCAFile = caFile
            if let scopes { config.scopes = scopes }
            config.resource = resource
            if let cookie { config.sessionCookie = cookie }
            if let insecureCookie { config.allowInsecureCookieName = insecureCookie }
            if let idle { config.sessionIdleTimeout = .seconds(idle) }
            if let absolute { config.sessionAbsoluteTimeout = .seconds(absolute) }
            if let staleness { config.sessionCacheStaleness = .milliseconds(staleness) }
            config.machineClient = machine
            if let skew { config.refreshSkew = .seconds(skew) }
            if let leeway { config.refreshReuseLeeway = .seconds(leeway) }
            if let upstreamTimeout { config.upstreamTimeout = .milliseconds(upstreamTimeout) }
        }
    }

    /// A client id and secret: both or neither.
    static func credentials(_ id: String?, _ secret: Secret?, id idSetting: SettingDefinition,
                            secret secretSetting: SettingDefinition, _ reader: inout SettingReader) -> ClientCredentials? {
        switch (id, secret) {
        case let (id?, secret?): return ClientCredentials(id: id, secret: secret)
        case (_?, nil): reader.report(secretSetting, "is required when \(idSetting.name) is set")
        case (nil, _?): reader.report(idSetting, "is required when \(secretSetting.name) is set")
        case (nil, nil): break
        }
        return nil
    }

    /// Loads with the options of the command line (`--config`).
    public static func load(_ options: CommandLineOptions, environment: [String: String]) -> Result<GatewayConfig, ConfigErrors> {
        load(environment: environment, configFile: options.configFile)
    }

    /// A comma-separated list of CIDR blocks or bare addresses; blanks
    /// around items are ignored, empty items are not.
    static func parseCIDRList(_ text: String) -> Result<[CIDR], ValueProblem> {
        guard !text.isEmpty else { return .success([]) }
        var blocks: [CIDR] = []
        var bad: [String] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = Lexical.trimmingWhitespace(item, newlines: false)
            if let block = CIDR(trimmed) { blocks.append(block) } else { bad.append("\"\(trimmed)\"") }
        }
        guard bad.isEmpty else {
            return .failure(ValueProblem("\(bad.joined(separator: ", ")) \(bad.count == 1 ? "is not a" : "are not") "
                + "CIDR block\(bad.count == 1 ? "" : "s") (like 10.0.0.0/8, fd00::/8 or 192.0.2.7)"))
        }
        return .success(blocks)
    }

    /// BFF_ROUTES; `allowedHTTPHosts` nil (itself invalid) skips the
    /// plain-http check of the upstreams.
    private static func readRoutes(allowedHTTPHosts: [String]?, _ reader: inout SettingReader) -> [RouteConfig]? {
        guard let (text, origin) = reader.text(.routes) else { return [] }
        let (routes, errors) = RouteConfig.parseList(text, setting: SettingDefinition.routes.name,
                                                     allowedHTTPHosts: allowedHTTPHosts)
        guard errors.isEmpty else {
            if case .file(let key, let path) = origin {
                reader.record(errors.map { ConfigError(setting: $0.setting, message: "\($0.message) (\(key) in \(path))") })
            } else {
                reader.record(errors)
            }
            return nil
        }
        return routes
    }

    /// A route that needs tokens needs Modgud and the client credentials
    /// (the machine client's for token `client`).
    private static func checkRoutesHaveModgud(_ routes: [RouteConfig], _ reader: inout SettingReader) {
        for (index, route) in routes.enumerated() where route.token.needsModgud {
            var needed = [SettingDefinition.modgudURL, .clientID, .clientSecret]
            if route.token == .client { needed += [.machineClientID, .machineClientSecret] }
            let missing = needed.filter { !reader.isGiven($0) }
            guard !missing.isEmpty else { continue }
            reader.record([ConfigError(
                setting: "\(SettingDefinition.routes.name)[\(index)].token",
                message: "token \(route.token.rawValue) needs \(missing.map(\.name).joined(separator: ", ")), which "
                    + (missing.count == 1 ? "is" : "are") + " not set")])
        }
    }
}
