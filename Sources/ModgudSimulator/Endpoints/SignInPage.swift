/// The simulator's sign-in pages: small HTML forms a browser test clicks
/// through. Each posts back to the endpoint that showed it
/// (`/connect/authorize`, or `/connect/signin`) and carries that request's
/// parameters as hidden fields, escaped.
enum SignInPage {
    /// The fields the pages add; never carried over as request parameters.
    static let ownFields: Set<String> = ["email", "password", "totp_code", "sim_pending"]

    /// A page with a heading and a sentence.
    static func message(_ title: String, _ text: String) -> String {
        head(title) + "<p>\(escape(text))</p>"
    }

    /// E-mail and password; `email` pre-fills the first field.
    static func password(keep: [(name: String, value: String)], email: String?,
                         action: String = SimulatorCore.authorizePath, notice: String?) -> String {
        head("Sign in to the Modgud simulator") + alert(notice) + formStart(keep, action: action)
            + #"<p><label for="email">E-mail address</label> "#
            + #"<input id="email" name="email" type="email" autocomplete="username" required"#
            + (email.map { #" value=""# + escape($0) + #"""# } ?? "") + (email == nil ? " autofocus" : "") + "></p>"
            + #"<p><label for="password">Password</label> "#
            + #"<input id="password" name="password" type="password" autocomplete="current-password" required"#
            + (email == nil ? "" : " autofocus") + "></p>"
            + #"<button type="submit">Sign in</button></form>"#
    }

    /// The authenticator code after the password (or for an `mfa_token`).
    static func totp(keep: [(name: String, value: String)], action: String = SimulatorCore.authorizePath,
                     notice: String?) -> String {
        head("Second factor") + alert(notice) + "<p>Enter the code from your authenticator app.</p>"
            + formStart(keep, action: action)
            + #"<p><label for="totp_code">Authenticator code</label> "#
            + #"<input id="totp_code" name="totp_code" inputmode="numeric" autocomplete="one-time-code" required autofocus></p>"#
            + #"<button type="submit">Continue</button></form>"#
    }

    static func escape(_ text: String) -> String {
        text.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;")
            .replacingAll("\"", "&quot;").replacingAll("'", "&#39;")
    }

    static func head(_ title: String) -> String {
        #"<!doctype html><html lang="en"><meta charset="utf-8"><title>"# + escape(title) + "</title><h1>" + escape(title) + "</h1>"
    }

    static func alert(_ notice: String?) -> String {
        notice.map { #"<p role="alert">"# + escape($0) + "</p>" } ?? ""
    }

    /// A POST form to `action` carrying `keep` as hidden fields.
    static func formStart(_ keep: [(name: String, value: String)], action: String) -> String {
        #"<form method="post" action=""# + escape(action) + #"">"# + keep.map {
            #"<input type="hidden" name=""# + escape($0.name) + #"" value=""# + escape($0.value) + #"">"#
        }.joined()
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, _ replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = "", rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
