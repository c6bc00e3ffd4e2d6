import Core

extension ConfigLoader {
    /// The authorization-code flow's settings; returns how to apply them.
    static func readCodeFlowSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let codeFlow = reader.boolean(.codeFlow)
        let errorPath = reader.value(.signInErrorPath) { text -> Result<String, ValueProblem> in
            ReturnPath.isSameOriginPath(text) ? .success(text) : .failure(ValueProblem(
                "must be a path on the public origin: one leading /, no //, no \\, no whitespace or control "
                    + "character, at most \(ReturnPath.maximumBytes) bytes"))
        }
        let postLogout = reader.value(.postLogoutRedirectURI) { text -> Result<String, ValueProblem> in
            guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
                return .failure(ValueProblem("must be an absolute http or https URL"))
            }
            return HTTPURL.parse(text).map { _ in text }
        }
        let skew = reader.integer(.idTokenSkew)
        return { config in
            if let codeFlow { config.codeFlow = codeFlow }
            if let errorPath { config.signInErrorPath = errorPath }
            config.postLogoutRedirectURI = postLogout
            if let skew { config.idTokenSkew = .seconds(skew) }
        }
    }
}
