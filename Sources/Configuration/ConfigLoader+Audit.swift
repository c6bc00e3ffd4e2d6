extension ConfigLoader {
    /// The audit trail's stream and whether it names e-mail addresses;
    /// returns how to apply them.
    static func readAuditSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let destination = reader.value(.auditLog, AuditLogDestination.parse)
        let email = reader.boolean(.auditEmail)
        return { config in
            if let destination { config.auditLog = destination }
            if let email { config.auditEmail = email }
        }
    }
}
