extension SettingDefinition {
    public static let auditLog = SettingDefinition(
        "BFF_AUDIT_LOG", kind: .text, default: .value("stdout"),
        summary: "Where the audit trail's JSON lines go (Docs/operations.md, \"Audit trail\"): `stdout` (among the "
            + "other log lines), an absolute file path (opened for append), or `off`.")
    public static let auditEmail = SettingDefinition(
        "BFF_AUDIT_EMAIL", kind: .boolean, default: .value("false"),
        summary: "Whether audit lines name the e-mail address a sign-in was asked for, in clear; when false no "
            + "audit line holds an address.")
}
