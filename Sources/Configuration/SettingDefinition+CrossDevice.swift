extension SettingDefinition {
    /// BFF_CROSS_DEVICE: whether the cross-device sign-in is offered.
    public static let crossDevice = SettingDefinition(
        "BFF_CROSS_DEVICE", kind: .boolean, default: .value("false"),
        summary: "Offer cross-device sign-in with a match code (`/bff/cross-device/*`, Modgud's device authorization "
            + "grant run by the gateway); false answers the three endpoints with 404. Modgud must allow the device "
            + "code grant for the client.")
}
