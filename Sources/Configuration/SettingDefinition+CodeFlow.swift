extension SettingDefinition {
    public static let codeFlow = SettingDefinition(
        "BFF_CODE_FLOW", kind: .boolean, default: .value("true"),
        summary: "Offer sign-in through Modgud's own pages (`GET /bff/login`, `GET /bff/callback`, authorization "
            + "code + PKCE); false answers both with 404.")
    public static let signInErrorPath = SettingDefinition(
        "BFF_SIGNIN_ERROR_PATH", kind: .text, default: .value("/"),
        summary: "Where a failed `/bff/login` or `/bff/callback` sends the browser, with `?error=<code>`: a path "
            + "on the public origin (one leading `/`, no `//`, `\\`, whitespace or control character).")
    public static let postLogoutRedirectURI = SettingDefinition(
        "BFF_POST_LOGOUT_REDIRECT_URI", kind: .text, default: .computed("BFF_PUBLIC_ORIGIN followed by /"),
        summary: "Where Modgud's end-session page sends the browser after a sign-out of a `/bff/login` session "
            + "(absolute `http` or `https` URL, registered at Modgud for the client).")
    public static let idTokenSkew = SettingDefinition(
        "BFF_ID_TOKEN_SKEW_S", kind: .integer(0...300), default: .value("60"),
        summary: "Seconds of clock difference allowed on the `exp` and `iat` of id_tokens and logout tokens.")
}
