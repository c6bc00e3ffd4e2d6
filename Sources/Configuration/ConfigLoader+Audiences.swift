/// Which audience each route's user token has (Docs/proxy.md,
/// "Audiences"): every token that reaches an API is narrowed to one
/// audience first. A route without a `resource` gets the default token,
/// narrowed to `BFF_RESOURCE`; without `BFF_RESOURCE` there is nothing to
/// narrow it to, and it would carry every audience the sign-in asked for.
extension ConfigLoader {
    /// Routes that attach the user's token may not mix routes with and
    /// without a `resource` while `BFF_RESOURCE` is unset.
    static func checkAudiences(_ routes: [RouteConfig], _ reader: inout SettingReader) {
        guard !reader.isGiven(.resource) else { return }
        let user = routes.enumerated().filter { $0.element.token == .user || $0.element.token == .userOrAnonymous }
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
}
