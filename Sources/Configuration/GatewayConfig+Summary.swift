extension GatewayConfig: CustomStringConvertible {
    /// `duration` in whole milliseconds, as the `_MS` settings give it.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Each setting with the value in force, in the table's order; secrets
    /// as `<redacted>`, the Redis password too, unset ones as `(not set)`.
    public func redactedSummary() -> [(String, String)] {
        let notSet = "(not set)"
        func milliseconds(_ duration: Duration) -> String { String(Self.milliseconds(duration)) }
        let values: [String: String] = [
            SettingDefinition.listen.name: listen.description,
            SettingDefinition.adminListen.name: adminListen.description,
            SettingDefinition.publicOrigin.name: publicOrigin.description,
            SettingDefinition.modgudURL.name: modgudURL?.description ?? notSet,
            SettingDefinition.clientID.name: client?.id ?? notSet,
            SettingDefinition.clientSecret.name: client.map { $0.secret.description } ?? notSet,
            SettingDefinition.redisMode.name: redis.mode.rawValue,
            SettingDefinition.redisURL.name: redis.redactedURL,
            SettingDefinition.redisPasswordFile.name: redisPasswordFile ?? notSet,
            SettingDefinition.redisSentinelMaster.name: redis.sentinelMaster ?? notSet,
            SettingDefinition.redisSentinelUsername.name: redis.sentinelUsername ?? notSet,
            SettingDefinition.redisSentinelPasswordFile.name: redisSentinelPasswordFile ?? notSet,
            SettingDefinition.redisCAFile.name: redis.tls?.caFile ?? notSet,
            SettingDefinition.redisCertFile.name: redis.tls?.certificateFile ?? notSet,
            SettingDefinition.redisKeyFile.name: redis.tls?.keyFile ?? notSet,
            SettingDefinition.redisTLSServerName.name: redis.tls?.serverName ?? notSet,
            SettingDefinition.redisWaitReplicas.name: String(redis.waitReplicas),
            SettingDefinition.redisWaitTimeout.name: milliseconds(redis.waitTimeout),
            SettingDefinition.trustedProxies.name: trustedProxies.map(\.description).joined(separator: ","),
            SettingDefinition.routes.name: routes.isEmpty ? "[]" : routes.map(\.description).joined(separator: "; "),
            SettingDefinition.allowHTTPHosts.name: allowedHTTPHosts.joined(separator: ","),
            SettingDefinition.loops.name: String(eventLoops),
            SettingDefinition.maxConnections.name: String(maxConnections),
            SettingDefinition.maxHeaderBytes.name: String(maxHeaderBytes),
            SettingDefinition.maxBodyBytes.name: String(maxBodyBytes),
            SettingDefinition.headerTimeout.name: milliseconds(headerTimeout),
            SettingDefinition.bodyTimeout.name: milliseconds(bodyTimeout),
            SettingDefinition.idleTimeout.name: milliseconds(idleTimeout),
            SettingDefinition.writeTimeout.name: milliseconds(writeTimeout),
            SettingDefinition.shutdownTimeout.name: milliseconds(shutdownTimeout),
            SettingDefinition.logLevel.name: logLevel.rawValue,
            SettingDefinition.accessLog.name: String(accessLog),
            SettingDefinition.auditLog.name: auditLog.description,
            SettingDefinition.auditEmail.name: String(auditEmail),
            SettingDefinition.forwardedHeader.name: forwardedHeader,
            SettingDefinition.modgudTimeout.name: milliseconds(modgudTimeout),
            SettingDefinition.modgudCAFile.name: modgudCAFile ?? notSet,
            SettingDefinition.scopes.name: scopes,
            SettingDefinition.resource.name: resource ?? notSet,
            SettingDefinition.sessionCookie.name: sessionCookie,
            SettingDefinition.allowInsecureCookieName.name: String(allowInsecureCookieName),
            SettingDefinition.sessionIdleTimeout.name: String(sessionIdleTimeout.components.seconds),
            SettingDefinition.sessionAbsoluteTimeout.name: String(sessionAbsoluteTimeout.components.seconds),
            SettingDefinition.sessionCacheStaleness.name: milliseconds(sessionCacheStaleness),
            SettingDefinition.machineClientID.name: machineClient?.id ?? notSet,
            SettingDefinition.machineClientSecret.name: machineClient == nil ? notSet : "set",
            SettingDefinition.refreshSkew.name: String(refreshSkew.components.seconds),
            SettingDefinition.refreshReuseLeeway.name: String(refreshReuseLeeway.components.seconds),
            SettingDefinition.upstreamTimeout.name: milliseconds(upstreamTimeout),
            SettingDefinition.bodyMinRate.name: String(bodyMinRate),
            SettingDefinition.bodyRateGrace.name: milliseconds(bodyRateGrace),
            SettingDefinition.proxyMaxBodyBytes.name: String(proxyMaxBodyBytes),
            SettingDefinition.maxConnectionsPerAddress.name: String(maxConnectionsPerAddress),
            SettingDefinition.codeFlow.name: String(codeFlow),
            SettingDefinition.signInErrorPath.name: signInErrorPath,
            SettingDefinition.postLogoutRedirectURI.name: postLogoutRedirect,
            SettingDefinition.idTokenSkew.name: String(idTokenSkew.components.seconds),
            SettingDefinition.appCallbackURI.name: apps.count == 1 ? apps[0].callbackURI : notSet,
            SettingDefinition.appName.name: apps.count == 1 ? apps[0].name : "the app",
            SettingDefinition.appAndroidPackage.name: apps.count == 1 ? apps[0].androidPackage ?? notSet : notSet,
            SettingDefinition.apps.name: apps.count > 1 ? apps.map(\.description).joined(separator: "; ") : "[]",
            SettingDefinition.appLoginStartRate.name: appLoginStartRate?.description ?? "off",
            SettingDefinition.appLoginSessionRate.name: appLoginSessionRate?.description ?? "off",
            SettingDefinition.crossDevice.name: String(crossDevice),
            SettingDefinition.staticRoot.name: staticRoot ?? notSet,
            SettingDefinition.staticFallback.name: staticFallback ?? "off",
            SettingDefinition.staticHTMLHeaders.name: HeaderField.jsonText(staticHTMLHeaders),
            SettingDefinition.staticRevalidate.name: milliseconds(staticRevalidate),
            SettingDefinition.listenMode.name: "0" + String(listenMode, radix: 8),
            SettingDefinition.listenGroup.name: listenGroup ?? notSet,
        ]
        return SettingDefinition.all.map { setting in
            let value = setting.isSecret && values[setting.name] != notSet ? "<redacted>" : values[setting.name]
            return (setting.name, value ?? "(missing from the summary)")
        }
    }

    /// `NAME=value` lines from ``redactedSummary()``; no secret appears.
    public var description: String {
        redactedSummary().map { "\($0.0)=\($0.1)" }.joined(separator: "\n")
    }
}
