extension ConfigLoader {
    /// The limits that keep one slow or greedy client from holding the
    /// gateway's resources; returns how to apply them.
    static func readLimitSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let minRate = reader.integer(.bodyMinRate)
        let grace = reader.integer(.bodyRateGrace)
        let proxyBody = reader.integer(.proxyMaxBodyBytes)
        let perAddress = reader.integer(.maxConnectionsPerAddress)
        return { config in
            if let minRate { config.bodyMinRate = minRate }
            if let grace { config.bodyRateGrace = .milliseconds(grace) }
            if let proxyBody { config.proxyMaxBodyBytes = proxyBody }
            if let perAddress { config.maxConnectionsPerAddress = perAddress }
        }
    }
}
