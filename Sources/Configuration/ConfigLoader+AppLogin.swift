import Core

extension ConfigLoader {
    /// The app hand-off's settings: one app by BFF_APP_CALLBACK_URI (with
    /// BFF_APP_NAME and BFF_APP_ANDROID_PACKAGE), or several by BFF_APPS,
    /// never both; and the two rate limits. Returns how to apply them.
    static func readAppLoginSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let callback = reader.value(.appCallbackURI) { text -> Result<String, ValueProblem> in
            AppLoginApp.callbackProblem(text).map { .failure(ValueProblem($0)) } ?? .success(text)
        }
        let name = reader.value(.appName) { text -> Result<String, ValueProblem> in
            AppLoginApp.nameProblem(text).map { .failure(ValueProblem($0)) } ?? .success(text)
        }
        let package = reader.value(.appAndroidPackage) { text -> Result<String, ValueProblem> in
            AppLoginApp.packageProblem(text).map { .failure(ValueProblem($0)) } ?? .success(text)
        }
        let listed = readAppList(&reader)
        let startRate = reader.value(.appLoginStartRate, RateLimit.parse)
        let sessionRate = reader.value(.appLoginSessionRate, RateLimit.parse)
        var apps: [AppLoginApp] = listed ?? []
        if reader.isGiven(.appCallbackURI), !(listed ?? []).isEmpty {
            reader.report(.apps, "must not be set together with BFF_APP_CALLBACK_URI (one app, or a list)")
        } else if let callback {
            apps = [AppLoginApp(name: name ?? "the app", callbackURI: callback, androidPackage: package)]
        }
        if !reader.isGiven(.appCallbackURI), reader.isGiven(.appAndroidPackage) {
            reader.report(.appAndroidPackage, "needs BFF_APP_CALLBACK_URI")
        }
        return { config in
            config.apps = apps
            if let startRate { config.appLoginStartRate = startRate }
            if let sessionRate { config.appLoginSessionRate = sessionRate }
        }
    }

    /// BFF_APPS: an array of `{name, callbackUri, androidPackage?}` with
    /// distinct names; every problem named `BFF_APPS[index].key`.
    private static func readAppList(_ reader: inout SettingReader) -> [AppLoginApp]? {
        guard let (text, _) = reader.text(.apps) else { return [] }
        let setting = SettingDefinition.apps.name
        guard let json = try? JSON.parse(text, limits: JSONValue.limits), let array = json.arrayValue else {
            reader.report(.apps, "must be a JSON array of app objects")
            return nil
        }
        var apps: [AppLoginApp] = []
        var errors: [ConfigError] = []
        let keys = ["name", "callbackUri", "androidPackage"]
        for (index, element) in array.enumerated() {
            let path = "\(setting)[\(index)]"
            guard case .object(let object) = element else {
                errors.append(ConfigError(setting: path, message: "must be an object"))
                continue
            }
            for key in object.keys.sorted() where !keys.contains(key) {
                errors.append(ConfigError(setting: path, message: "unknown key \"\(key)\""))
            }
            func field(_ key: String, required: Bool, _ check: (String) -> String?) -> String? {
                guard let value = object[key], !value.isNull else {
                    if required { errors.append(ConfigError(setting: "\(path).\(key)", message: "is required")) }
                    return nil
                }
                guard let text = value.stringValue else {
                    errors.append(ConfigError(setting: "\(path).\(key)", message: "must be a string"))
                    return nil
                }
                if let problem = check(text) {
                    errors.append(ConfigError(setting: "\(path).\(key)", message: problem))
                    return nil
                }
                return text
            }
            let name = field("name", required: true, AppLoginApp.nameProblem)
            let callback = field("callbackUri", required: true, AppLoginApp.callbackProblem)
            let package = field("androidPackage", required: false, AppLoginApp.packageProblem)
            guard let name, let callback else { continue }
            if apps.contains(where: { $0.name == name }) {
                errors.append(ConfigError(setting: "\(path).name", message: "\"\(name)\" names another app already"))
                continue
            }
            apps.append(AppLoginApp(name: name, callbackURI: callback, androidPackage: package))
        }
        guard errors.isEmpty else {
            reader.record(errors)
            return nil
        }
        return apps
    }
}
