extension ConfigLoader {
    /// The cross-device sign-in's settings; returns how to apply them.
    static func readCrossDeviceSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let crossDevice = reader.boolean(.crossDevice)
        return { config in
            if let crossDevice { config.crossDevice = crossDevice }
        }
    }
}
