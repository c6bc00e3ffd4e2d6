extension SettingDefinition {
    public static let bodyMinRate = SettingDefinition(
        "BFF_BODY_MIN_RATE", kind: .integer(0...1_073_741_824), default: .value("500"),
        summary: "Request bodies: bytes per second a body must arrive at, on average, once its grace "
            + "(BFF_BODY_RATE_GRACE_MS) is spent; slower ones get 408 and the connection is closed. 0 turns it off.")
    public static let bodyRateGrace = SettingDefinition(
        "BFF_BODY_RATE_GRACE_MS", kind: .integer(100...3_600_000), default: .value("20000"),
        summary: "Request bodies: milliseconds allowed before BFF_BODY_MIN_RATE counts; every BFF_BODY_MIN_RATE "
            + "bytes received add one second.")
    public static let proxyMaxBodyBytes = SettingDefinition(
        "BFF_PROXY_MAX_BODY_BYTES", kind: .integer(RouteConfig.bodyLimitRange), default: .value("10485760"),
        summary: "Largest request body for an API route without its own `maxBodyBytes`; larger bodies get 413.")
    public static let maxConnectionsPerAddress = SettingDefinition(
        "BFF_MAX_CONNECTIONS_PER_ADDRESS", kind: .integer(0...1_048_576), default: .value("256"),
        summary: "Open connections one client address may hold (from a trusted proxy: requests in flight per "
            + "forwarded client address); past it 429. 0 turns it off.")
}
