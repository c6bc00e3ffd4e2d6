import Core

/// `GET /bff/capabilities`: what the gateway has configured, narrowed by
/// what Modgud will accept. A method Modgud's app-info refuses is never
/// offered; while app-info cannot be read, the configured methods stand
/// (the native calls would report Modgud's refusal themselves).
enum Capabilities {
    /// The configured answer (`GatewayService.capabilities`) with Modgud's
    /// policy applied: `appInfo` is Modgud's `/api/app-info` body when it
    /// answered, `backchannelLogout` discovery's `backchannel_logout_supported`.
    static func merge(_ configured: JSON, appInfo: JSON?, backchannelLogout: Bool) -> JSON {
        var signIn = object(configured["signIn"])
        var features = object(configured["features"])
        if let appInfo {
            let policy = appInfo.value(forKeyIgnoringCase: "SignIn")
            func allows(_ value: JSON?) -> Bool { value?.boolValue ?? true }
            let native = allows(appInfo.value(forKeyIgnoringCase: "NativeGrants"))
            narrow(&signIn, "emailCode", native && allows(policy?.value(forKeyIgnoringCase: "EmailCode")))
            narrow(&signIn, "magicLink", native && allows(appInfo.value(forKeyIgnoringCase: "MagicLinkSelfService")))
            narrow(&signIn, "passkey", native && allows(policy?.value(forKeyIgnoringCase: "Passkey")))
            // `/bff/register` forwards to native/register, which only the
            // ExplicitEndpoint posture accepts.
            let posture = appInfo.value(forKeyIgnoringCase: "SelfRegistration")?.stringValue
            narrow(&signIn, "register", native && (posture == nil || posture == "ExplicitEndpoint"))
            if let posture { signIn["selfRegistration"] = .string(posture) }
        }
        features["backchannelLogout"] = .bool(backchannelLogout && (features["sessions"]?.boolValue ?? false))
        return ["signIn": .object(signIn), "features": .object(features)]
    }

    private static func object(_ json: JSON?) -> JSONObject {
        if case .object(let object)? = json { return object }
        return JSONObject()
    }

    /// `key` stays true only when Modgud allows it too.
    private static func narrow(_ object: inout JSONObject, _ key: String, _ allowed: Bool) {
        if object[key]?.boolValue == true { object[key] = .bool(allowed) }
    }
}
