/// Which audience each route's user token has (Docs/proxy.md,
/// "Audiences"): every token that reaches an API is narrowed to one
/// audience first. A route without a `resource` gets the default token,
/// narrowed to `BFF_RESOURCE`; without `BFF_RESOURCE` there is nothing to
/// narrow it to, and it would carry every audience the sign-in asked for.
extension ConfigLoader {
    /// Routes that attach the user's token may not mix routes with and
    /// without a `resource` while `BFF_RESOURCE` is unset.
    static func checkAudiences(_ routes: [RouteConfig], _ reader: inout SettingReader) {
        let user = routes.enumerated().filter { $0.element.token == .user || $0.element.token == .userOrAnonymous }
        checkNarrowingNeedsRefresh(user.map(\.element), &reader)
        guard !reader.isGiven(.resource) else { return }
        let without = user.filter { $0.element.resource == nil }.map(\.offset)
        guard !without.isEmpty, without.count < user.count else { return }
        let listed = without.map { "\(SettingDefinition.routes.name)[\($0)]" }.joined(separator: ", ")
        reader.record([ConfigError(
            setting: SettingDefinition.resource.name,
            message: "must be set: \(listed) attach the user's token without a resource of their own while other user "
                + "routes name one, so the sign-in asks for several audiences and those routes would receive a token valid "
                + "for all of them; set \(SettingDefinition.resource.name) to the audience their APIs expect, or give each "
                + "of them a resource")])
    }

    /// A sign-in that asks for several audiences hands out a token valid
    /// for all of them, which is narrowed to one by a refresh before any
    /// API sees it: that needs a refresh token, so `offline_access`.
    private static func checkNarrowingNeedsRefresh(_ userRoutes: [RouteConfig], _ reader: inout SettingReader) {
        var audiences = Set(userRoutes.compactMap(\.resource))
        if let resource = reader.text(.resource)?.text { audiences.insert(resource) }
        let scopes = reader.text(.scopes)?.text ?? GatewayConfig.defaults.scopes
        guard audiences.count > 1, !scopes.split(separator: " ").contains("offline_access") else { return }
        reader.report(.scopes, "must include offline_access: the sign-in asks for \(audiences.count) audiences, and its "
            + "token is narrowed to one of them by a refresh before any API sees it, which needs a refresh token")
    }
}
