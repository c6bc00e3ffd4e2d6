extension SettingDefinition {
    public static let appCallbackURI = SettingDefinition(
        "BFF_APP_CALLBACK_URI", kind: .text, default: .unset,
        summary: "The one native app's exact callback for the app hand-off (`/bff/app-login/*`), e.g. "
            + "`mowdeck://auth/callback`: an absolute URI with a custom scheme, or `https`; no query, no fragment. "
            + "Not with BFF_APPS.")
    public static let appName = SettingDefinition(
        "BFF_APP_NAME", kind: .text, default: .value("the app"),
        summary: "The name `GET /bff/app-login/{requestId}` answers for the app of BFF_APP_CALLBACK_URI.")
    public static let appAndroidPackage = SettingDefinition(
        "BFF_APP_ANDROID_PACKAGE", kind: .text, default: .unset,
        summary: "The Android package of the app of BFF_APP_CALLBACK_URI: the hand-off then also answers the "
            + "`intent://…#Intent;scheme=…;package=…;end` form, which only that package receives.")
    public static let apps = SettingDefinition(
        "BFF_APPS", kind: .jsonArray, default: .value("[]"),
        summary: "Several native apps for the hand-off: a JSON array of `{name, callbackUri, androidPackage?}`; "
            + "`start` names one by `app`. Not with BFF_APP_CALLBACK_URI.")
    public static let appLoginStartRate = SettingDefinition(
        "BFF_APP_LOGIN_START_RATE", kind: .text, default: .value("60/minute,burst=30"),
        summary: "`POST /bff/app-login/start` per client address and instance: `N/second|minute|hour[,burst=B]`, "
            + "or `off`.")
    public static let appLoginSessionRate = SettingDefinition(
        "BFF_APP_LOGIN_SESSION_RATE", kind: .text, default: .value("10/minute,burst=10"),
        summary: "`POST /bff/app-login/session` per client address and instance, in the same form.")
}
