/// The device verification page (`/connect/verify`): one labelled field
/// for the code the device shows, an anti-forgery field bound to the
/// browser's `sim_session`, and two buttons. Plain HTML, no script.
enum DevicePage {
    /// The hidden field carrying `BrowserSession.formToken`.
    static let antiForgeryField = "sim_csrf"

    /// The form; `userCode` pre-fills the field (escaped).
    static func form(userCode: String?, antiForgery: String, notice: String?) -> String {
        SignInPage.head("Connect a device") + SignInPage.alert(notice)
            + "<p>Enter the code shown on the device you are signing in, then approve or deny it. "
            + "Approve only a code you can see on a screen in front of you.</p>"
            + SignInPage.formStart([(antiForgeryField, antiForgery)], action: SimulatorCore.verificationPath)
            + #"<p><label for="user_code">Code shown on your device</label> "#
            + #"<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" "#
            + #"spellcheck="false" required autofocus"#
            + (userCode.map { #" value=""# + SignInPage.escape($0) + #"""# } ?? "") + "></p>"
            + #"<button type="submit" name="action" value="approve">Approve</button> "#
            + #"<button type="submit" name="action" value="deny">Deny</button></form>"#
    }
}
