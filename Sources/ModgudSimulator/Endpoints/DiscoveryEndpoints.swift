import Core
import HTTP

/// Discovery, JWKS and `/api/app-info`.
extension SimulatorCore {
    func discovery(config: SimulatorConfig) -> HTTPResponse {
        let issuer = state.issuer
        var grants = [GrantType.authorizationCode, GrantType.refreshToken, GrantType.clientCredentials, GrantType.deviceCode]
        if config.realm.nativeGrants { grants += GrantType.native }
        var body: JSONObject = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/connect/authorize"),
            "token_endpoint": .string(issuer + "/connect/token"),
            "userinfo_endpoint": .string(issuer + "/connect/userinfo"),
            "revocation_endpoint": .string(issuer + "/connect/revoke"),
            "introspection_endpoint": .string(issuer + "/connect/introspect"),
            "end_session_endpoint": .string(issuer + "/connect/logout"),
            "device_authorization_endpoint": .string(issuer + Self.deviceAuthorizationPath),
            "jwks_uri": .string(issuer + "/.well-known/jwks"),
            "grant_types_supported": .array(grants.map { .string($0) }),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "claims_supported": ["sub", "email", "email_verified", "name", "given_name", "family_name", "acr", "amr",
                                 "auth_time", "sid"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "backchannel_logout_supported": true,
            "backchannel_logout_session_supported": true,
            "authorization_response_iss_parameter_supported": true,
            "prompt_values_supported": ["none", "login"],
        ]
        if config.realm.par {
            body["pushed_authorization_request_endpoint"] = .string(issuer + "/connect/par")
        }
        return Reply.json(.ok, .object(body))
    }

    func jwks() -> HTTPResponse {
        Reply.json(.ok, state.signingKey.jwks)
    }

    /// PascalCase, nulls omitted, like Modgud's own `/api/app-info`.
    func appInfo(config: SimulatorConfig) -> HTTPResponse {
        let realm = config.realm
        func object(_ pairs: [(String, String?)]) -> JSON {
            var object = JSONObject()
            for (key, value) in pairs { if let value { object[key] = .string(value) } }
            return .object(object)
        }
        let body: JSON = [
            "AuthenticationMinimumLevel": realm.signIn.requiresMulti ? 2 : 1,
            "MagicLinkSelfService": .bool(realm.magicLinkSelfService),
            "TwoFactorGracePeriodDays": .int(Int64(realm.twoFactorGracePeriodDays)),
            "IsControlPlane": false,
            "Branding": object([("ProductName", realm.branding.productName), ("LogoUrl", realm.branding.logoUrl),
                                ("FaviconUrl", realm.branding.faviconUrl), ("PrimaryColor", realm.branding.primaryColor)]),
            "Legal": object([("TermsUrl", realm.legal.termsUrl), ("PrivacyUrl", realm.legal.privacyUrl),
                             ("ImprintUrl", realm.legal.imprintUrl)]),
            "RegistrationFields": [
                "Email": "Required",
                "Username": .string(realm.registrationFields.username.rawValue),
                "Firstname": .string(realm.registrationFields.firstname.rawValue),
                "Lastname": .string(realm.registrationFields.lastname.rawValue),
            ],
            "SignIn": [
                "Password": .bool(realm.signIn.password),
                "EmailCode": .bool(realm.signIn.emailCode),
                "Passkey": .bool(realm.signIn.passkey),
                "MinimumLevel": .string(realm.signIn.minimumLevel),
            ],
            "SelfRegistration": .string(realm.selfRegistration.rawValue),
            "NativeGrants": .bool(realm.nativeGrants),
        ]
        return Reply.json(.ok, body)
    }
}
