extension SettingDefinition {
    public static let listenMode = SettingDefinition(
        "BFF_LISTEN_MODE", kind: .text, default: .value("0660"),
        summary: "Permission bits (octal) of a `unix:` listener's socket file; connecting needs write permission, "
            + "so this and BFF_LISTEN_GROUP decide who may act as the proxy.")
    public static let listenGroup = SettingDefinition(
        "BFF_LISTEN_GROUP", kind: .text, default: .unset,
        summary: "Group (name or id) of a `unix:` listener's socket file, e.g. the reverse proxy's group; "
            + "unset keeps the process's group. The owner is always the process's user.")
}
