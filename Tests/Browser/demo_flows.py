"""The demo app's flows, driven as a person would: labels, buttons and keys,
never the app's internals. Each flow takes the running Stack and a browser;
`check` records failures (browserlib)."""
import re
import time
from pathlib import Path

from browserlib import check, post_json, totp
from demo_page import ADA, GRACE, PASSWORD, TOTP_SECRET, Demo, sim_config
from demostack import PAGE_HEADERS


def sign_in_with_second_factor_at_provider(stack, page) -> None:
    """On the simulator's sign-in page: Grace's password, then her TOTP
    code; back on the demo's origin when it returns."""
    page.get_by_label("E-mail address").fill(GRACE)
    page.get_by_label("Password").fill(PASSWORD)
    page.click("button[type=submit]")
    page.fill("#totp_code", totp(TOTP_SECRET))
    page.click("button[type=submit]")
    page.wait_for_url(stack.origin + "/")


def run_code_and_passkeys(stack, browser, shots: Path) -> None:
    """grace@: e-mail code, TOTP, passkey enrolment, button and autofill sign-in, removal with step-up."""
    demo = Demo(stack, browser, shots, authenticator=True)
    page = demo.page
    demo.open()
    check(demo.screen() == "signin" and demo.focused() == "email", "the sign-in screen, the focus in the e-mail field",
          (demo.screen(), demo.focused()))
    tokens = page.evaluate("Object.fromEntries([...document.querySelectorAll('input')].map(i => [i.id, i.autocomplete]))")
    check(tokens == {"email": "username webauthn", "given-name": "given-name", "family-name": "family-name",
                     "otp": "one-time-code", "totp": "one-time-code"}, "every input has its autocomplete token", tokens)
    unlabelled = page.evaluate("[...document.querySelectorAll('input')].filter(i => !i.labels.length).map(i => i.id)")
    check(unlabelled == [], "every input has a label", unlabelled)
    shown = [b for b in ("E-mail me a code", "E-mail me a link", "Sign in with a passkey",
                         "Sign in on the identity provider's page") if page.get_by_role("button", name=b).is_visible()]
    check(len(shown) == 4, "the four sign-in methods the gateway and the simulator offer", shown)
    demo.shot("signin")

    page.get_by_role("button", name="E-mail me a code").click()
    check("Enter your e-mail address" in demo.alert() and demo.focused() == "email",
          "no address: a message and the focus back in the field", demo.alert())

    page.get_by_label("E-mail address").fill(GRACE)
    page.get_by_role("button", name="E-mail me a code").click()
    demo.wait_screen("code")
    check(demo.focused() == "otp" and GRACE in demo.status(), "the code screen, focus in the code field, announced",
          (demo.focused(), demo.status()))
    demo.shot("code")
    page.get_by_label("Code from the e-mail").fill("000000" if demo.mail(GRACE)["code"] != "000000" else "111111")
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_selector("#alert:not([hidden])")
    check("wrong or has expired" in demo.alert(), "a wrong code: invalid_grant's message", demo.alert())
    page.get_by_label("Code from the e-mail").fill(demo.mail(GRACE)["code"])
    page.get_by_role("button", name="Sign in", exact=True).click()
    demo.wait_screen("mfa")
    check(demo.focused() == "totp", "mfa_required: the second-factor prompt, focus in its field", demo.focused())
    demo.shot("second-factor")
    page.get_by_label("Authenticator code").fill(totp(TOTP_SECRET))
    page.get_by_role("button", name="Continue", exact=True).click()
    demo.wait_screen("account")
    check(demo.focused() == "account-title" and GRACE in page.text_content("#user-card"),
          "signed in: the user card, focus on its heading", demo.focused())
    cookies = [c for c in demo.context.cookies() if c["name"].startswith("__Host-bff")]
    check(len(cookies) == 1 and cookies[0]["name"] == "__Host-bff" and cookies[0]["secure"] and cookies[0]["httpOnly"]
          and cookies[0]["sameSite"] == "Strict", "one session cookie: __Host-bff, Secure, HttpOnly, SameSite=Strict",
          cookies and {k: cookies[0][k] for k in ("name", "secure", "httpOnly", "sameSite")})
    page.wait_for_selector("#session-list li")
    check(page.locator("#passkey-none").is_visible(), "no passkey yet")

    page.get_by_role("button", name="Add a passkey").click()
    page.wait_for_selector("#passkey-list li")
    check(page.locator("#passkey-list li").count() == 1 and "Passkey added" in demo.status(),
          "a passkey added with the browser's WebAuthn and listed", demo.status())
    demo.shot("account")

    # The virtual authenticator answers a conditional (autofill) request at once when it
    # simulates presence; without, the request stays open as the person has not picked yet.
    demo.presence(False)
    page.get_by_role("button", name="Sign out", exact=True).click()
    demo.wait_screen("signin")
    time.sleep(0.3)
    check(demo.screen() == "signin" and "signed out" in demo.status() and demo.user_status() == 401,
          "signed out: the sign-in screen, /bff/user 401", demo.status())
    demo.presence(True)
    page.get_by_role("button", name="Sign in with a passkey").click()
    demo.wait_screen("account")
    check(GRACE in page.text_content("#user-card"), "signed in with the passkey button (the autofill request aborted)")

    # Autofill: the sign-in screen's conditional request, answered by the authenticator.
    demo.presence(False)
    page.get_by_role("button", name="Sign out", exact=True).click()
    demo.wait_screen("signin")
    check(page.evaluate("PublicKeyCredential.isConditionalMediationAvailable()"), "chromium offers passkey autofill")
    demo.presence(True)
    demo.page.goto(stack.origin + "/")
    demo.wait_screen("account")
    check(GRACE in page.text_content("#user-card") and demo.focused() == "account-title",
          "signed in through the e-mail field's passkey autofill, no button pressed")

    # Removal needs a sign-in of the last second; this one is older by then.
    sim_config(stack, {"realm": {"recentSignInRequired": True, "recentSignInMaxAgeSeconds": 1}})
    time.sleep(2.1)
    page.get_by_role("button", name=re.compile("^Remove ")).click()
    page.wait_for_selector("#stepup[open]")
    check(demo.focused() == "stepup-go", "step-up: the dialog, focus on its action", demo.focused())
    page.screenshot(path=str(shots / "step-up.png"))
    sim_config(stack, {"realm": {"recentSignInMaxAgeSeconds": 900}})
    page.get_by_role("button", name="Sign in again").click()
    page.wait_for_url(f"{stack.sim}/connect/authorize**")
    sign_in_with_second_factor_at_provider(stack, page)
    demo.wait_screen("account")
    page.get_by_role("button", name=re.compile("^Remove ")).click()
    page.wait_for_selector("#passkey-none:not([hidden])")
    check(page.locator("#passkey-list li").count() == 0 and "removed" in demo.status(),
          "after the step-up sign-in, the passkey removed", demo.status())
    sim_config(stack, {"realm": {"recentSignInRequired": False}})
    demo.finish("e-mail code, TOTP and passkeys")


def run_magic_link(stack, browser, shots: Path) -> None:
    """ada@: the link the simulator mails, opened on the demo's landing page."""
    demo = Demo(stack, browser, shots)
    page = demo.page
    demo.open()
    page.get_by_label("E-mail address").fill(ADA)
    page.get_by_role("button", name="E-mail me a link").click()
    demo.wait_screen("link-sent")
    check(demo.focused() == "link-sent-title" and ADA in page.text_content("#link-sent"),
          "magic link: the check-your-mail screen", demo.focused())
    demo.shot("link-sent")
    mail = demo.mail(ADA)
    check(mail["kind"] == "magic-link" and "/magic-login?" in mail["link"], "the simulator mailed a link", mail["kind"])
    # With --static the simulator mails links to the demo's landing page, as in
    # Deploy/local/run; otherwise they name its own host, and the query goes there.
    query = mail["link"].split("?", 1)[1]
    if stack.static:
        check(mail["link"] == f"{stack.origin}/magic-login?{query}", "…to the demo's landing page", mail["link"])
    page.goto(f"{stack.origin}/magic-login?{query}")
    demo.wait_screen("account")
    check(ADA in page.text_content("#user-card"), "the landing page redeemed the link: signed in")
    check(page.url == stack.origin + "/", "…and the token left the address bar", page.url)
    page.goto(f"{stack.origin}/magic-login?{query}")
    page.wait_for_selector("#alert:not([hidden])")
    check("wrong or has expired" in demo.alert() and demo.screen() == "magic",
          "the same link again: invalid_grant's message on the landing page", demo.alert())
    demo.finish("magic link")


def run_code_flow(stack, browser, shots: Path) -> None:
    """ada@ on the identity provider's pages, back at the demo; logout follows the end-session URL."""
    demo = Demo(stack, browser, shots)
    page = demo.page
    demo.open("/?error=access_denied")
    check("cancelled or declined" in demo.alert() and page.url == stack.origin + "/",
          "a failed sign-in's ?error=: its message, the address cleaned", (demo.alert(), page.url))
    page.get_by_label("E-mail address").fill(ADA)
    page.get_by_role("button", name="Sign in on the identity provider's page").click()
    page.wait_for_url(f"{stack.sim}/connect/authorize**")
    check(page.get_by_label("E-mail address").input_value() == ADA, "at the identity provider's page, the address passed on")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(stack.origin + "/")
    demo.wait_screen("account")
    check(ADA in page.text_content("#user-card"), "back from the identity provider's page: signed in")
    page.wait_for_selector("#session-list li")
    check("identity provider" in page.text_content("#session-list"), "the session says how it signed in")
    page.get_by_role("button", name="Sign out", exact=True).click()
    page.wait_for_url(stack.origin + "/**")
    demo.wait_screen("signin")
    check(demo.user_status() == 401, "logout went through the identity provider's end-session page and back")
    demo.finish("code flow")


def run_rate_limit(stack, browser, shots: Path) -> None:
    """The simulator throttles e-mail codes to one per address per 5 s: the countdown."""
    demo = Demo(stack, browser, shots)
    page = demo.page
    demo.open()
    sim_config(stack, {"rateLimitMode": "enforce", "rateLimits": {"policies": {"native-otp": {
        "source": None, "target": {"limit": 1, "windowSeconds": 5}, "client": None, "app": None}}}})
    try:
        email = "throttled@example.com"
        page.get_by_label("E-mail address").fill(email)
        page.get_by_role("button", name="E-mail me a code").click()
        demo.wait_screen("code")
        page.get_by_role("button", name="Send a new code").click()
        page.wait_for_selector("#alert:not([hidden])")
        first = demo.alert()
        seconds = re.search(r"Try again in (\d+) s\.", first)
        check(seconds is not None and 1 <= int(seconds.group(1)) <= 5, "429: the countdown from Retry-After", first)
        disabled = page.evaluate("[...document.querySelectorAll('#code button')].every(b => b.disabled)")
        check(disabled, "…with the buttons disabled meanwhile")
        demo.shot("rate-limited")
        if seconds and int(seconds.group(1)) > 1:
            demo.wait_until(f"!document.getElementById('alert').textContent.includes('in {seconds.group(1)} s')")
            check(re.search(r"Try again in \d+ s\.", demo.alert()) is not None, "…counting down", demo.alert())
        demo.wait_until("document.getElementById('status').textContent.includes('try again now')", timeout=8)
        enabled = page.evaluate("[...document.querySelectorAll('#code button')].every(b => !b.disabled)")
        check(enabled, "…and the buttons enabled again when it ends")
        page.get_by_role("button", name="Send a new code").click()
        demo.wait_until("document.getElementById('status').textContent.includes('new code')")
        check(True, "…and the next request goes through")
    finally:
        sim_config(stack, {"rateLimitMode": "off"})
    demo.finish("rate limit")


def run_sessions(stack, browser, shots: Path) -> None:
    """A new user (registered by the first code) in three browsers: the list, one signed
    out from another, then everywhere."""
    laptop, phone, tablet = (Demo(stack, browser, shots) for _ in range(3))
    for demo in (laptop, phone, tablet):
        demo.open()
        demo.sign_in_with_code("lin@example.com", names=None if demo is not laptop else ("Lin", "Tsai"))
    check(laptop.page.text_content("#user-name") == "Lin Tsai",
          "a new account with the name given in the registration fields", laptop.page.text_content("#user-name"))
    page = laptop.page
    page.reload()
    laptop.wait_screen("account")
    laptop.wait_until("document.querySelectorAll('#session-list li').length >= 3")
    items = page.locator("#session-list li")
    check(items.count() == 3 and "This device" in items.nth(0).text_content(),
          "the sessions list: three, this device first", [items.nth(i).text_content() for i in range(items.count())])
    laptop.shot("sessions")
    page.get_by_role("button", name=re.compile("^Sign out (?!this|everywhere)")).first.click()
    laptop.wait_until("document.querySelectorAll('#session-list li').length == 2")
    ended = [d.user_status() for d in (phone, tablet)]
    check(sorted(ended) == [200, 401] and "signed out" in laptop.status(), "another device signed out from the list",
          (ended, laptop.status()))
    page.get_by_role("button", name="Sign out everywhere").click()
    laptop.wait_screen("signin")
    check([d.user_status() for d in (laptop, phone, tablet)] == [401, 401, 401] and "every device" in laptop.status(),
          "sign out everywhere: every session ended", laptop.status())
    still = phone if ended[0] == 200 else tablet
    still.page.get_by_role("button", name="Add a passkey").click()
    still.wait_screen("signin")
    check("sign in" in still.alert(), "the other browser, at its next call: the sign-in screen and why", still.alert())
    for demo in (laptop, phone, tablet):
        demo.finish("sessions")


def run_keyboard(stack, browser, shots: Path) -> None:
    """A sign-in and a sign-out with the keyboard alone."""
    demo = Demo(stack, browser, shots)
    page, keys = demo.page, demo.page.keyboard
    demo.open()
    check(demo.focused() == "email", "keyboard: the focus starts in the e-mail field")
    keys.type(ADA)
    keys.press("Enter")
    demo.wait_screen("code")
    check(demo.focused() == "otp", "…Enter sends the code; the focus is in the code field")
    keys.type(demo.mail(ADA)["code"])
    keys.press("Enter")
    demo.wait_screen("account")
    order = []
    for _ in range(4):
        keys.press("Tab")
        order.append(demo.focused() or page.evaluate("document.activeElement.textContent"))
    check(order[0] == "logout", "…signed in; Tab reaches Sign out first", order)
    page.focus("#logout")
    keys.press("Enter")
    demo.wait_screen("signin")
    check(demo.focused() == "email" and demo.user_status() == 401, "…Enter on Sign out signs out", demo.focused())
    demo.finish("keyboard")


def run_loopback_address(stack, browser, shots: Path) -> None:
    """The demo opened on 127.0.0.1 moves to the same page on localhost, the host its cookies, the
    CSRF check and the passkeys belong to, and a sign-in works there."""
    demo = Demo(stack, browser, shots)
    page = demo.page
    page.goto(stack.origin.replace("//localhost:", "//127.0.0.1:") + "/?shown=1")
    page.wait_for_url(stack.origin + "/?shown=1")
    page.wait_for_selector("#loading", state="hidden")
    check(page.url == stack.origin + "/?shown=1", "loopback address: the page moved to localhost, path and query kept",
          page.url)
    page.fill("#email", ADA)
    page.keyboard.press("Enter")
    demo.wait_screen("code")
    page.fill("#otp", demo.mail(ADA)["code"])
    page.keyboard.press("Enter")
    demo.wait_screen("account")
    check(demo.user_status() == 200, "…and a sign-in there works")
    demo.finish("loopback address")


def run_narrow(stack, browser, shots: Path) -> None:
    """A phone's width, 360 px: nothing wider than the screen."""
    demo = Demo(stack, browser, shots, width=360)
    page = demo.page
    demo.open()
    wide = lambda: page.evaluate("document.documentElement.scrollWidth")
    check(wide() <= 360, "360 px: the sign-in screen fits", wide())
    demo.shot("narrow-signin")
    # The second factor on the identity provider's page this time (mfaBrowserMethods).
    page.get_by_label("E-mail address").fill(GRACE)
    page.get_by_role("button", name="E-mail me a code").click()
    demo.wait_screen("code")
    page.get_by_label("Code from the e-mail").fill(demo.mail(GRACE)["code"])
    page.get_by_role("button", name="Sign in", exact=True).click()
    demo.wait_screen("mfa")
    page.get_by_role("button", name="Continue on the identity provider's page").click()
    page.wait_for_url(f"{stack.sim}/connect/authorize**")
    # The simulator's page has the person sign in there again, then asks for the second factor.
    sign_in_with_second_factor_at_provider(stack, page)
    demo.wait_screen("account")
    check(GRACE in page.text_content("#user-card"), "the second factor given on the identity provider's page: signed in")
    page.wait_for_selector("#session-list li")
    check(wide() <= 360, "360 px: the account screen fits", wide())
    demo.shot("narrow-account")
    demo.finish("narrow")


# The simulator as a realm with explicit registration and a required first name.
REGISTRATION_REALM = {"realm": {"selfRegistration": "ExplicitEndpoint",
                                "registrationFields": {"firstname": "Required", "lastname": "Optional"}}}


def run_registration(stack, browser, shots: Path) -> None:
    """With REGISTRATION_REALM: "Create an account", the name fields as Modgud reports them."""
    demo = Demo(stack, browser, shots)
    page = demo.page
    demo.open()
    check(page.get_by_role("button", name="Create an account").is_visible()
          and page.get_by_label("First name (needed for a new account)").is_visible()
          and page.get_by_label("Last name (optional)").is_visible(),
          "explicit registration offered, the first name marked as needed")
    email = "ida@example.com"
    page.get_by_label("E-mail address").fill(email)
    page.get_by_role("button", name="Create an account").click()
    check("first name" in demo.alert() and demo.focused() == "given-name",
          "no first name: a message and the focus in its field", (demo.alert(), demo.focused()))
    page.get_by_label("First name (needed for a new account)").fill("Ida")
    page.get_by_label("Last name (optional)").fill("Rhodes")
    page.get_by_role("button", name="Create an account").click()
    demo.wait_screen("code")
    mail = demo.mail(email)
    check(mail["kind"] == "registration", "the registration code mailed", mail["kind"])
    page.get_by_label("Code from the e-mail").fill(mail["code"])
    page.get_by_role("button", name="Sign in", exact=True).click()
    demo.wait_screen("account")
    check(page.text_content("#user-name") == "Ida Rhodes", "the new account signed in, with its name",
          page.text_content("#user-name"))
    demo.finish("registration")


def run_headers(stack, browser) -> None:
    """The headers on the real answers, as the browser got them: nginx's on the pages,
    the gateway's on /bff/."""
    context = browser.new_context()
    page = context.new_page()
    answer = page.goto(stack.origin + "/")
    headers = answer.headers
    check(answer.status == 200 and headers.get("x-content-type-options") == "nosniff", "the page: nosniff", headers)
    if stack.tls:
        check(headers.get("cache-control") == "no-cache", "…Cache-Control no-cache from the shipped file", headers)
    elif stack.static:
        csp = headers.get("content-security-policy", "")
        check("script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp,
              "…the gateway's CSP: no inline script, no framing", headers)
        check(headers.get("referrer-policy") == "no-referrer" and headers.get("cache-control") == "no-cache"
              and "publickey-credentials-create=(self)" in headers.get("permissions-policy", "")
              and headers.get("cross-origin-opener-policy") == "same-origin",
              "…the gateway's other page headers: no referrer, no-cache HTML, passkeys allowed, COOP", headers)
    else:
        wanted = {name.lower(): value for name, value in PAGE_HEADERS.items()}
        check({k: headers.get(k) for k in wanted} == wanted, "…the CSP (no inline script) and the other page headers",
              headers)
    fetched = """async ([path, csrf]) => {
        const r = await fetch(path, {headers: csrf ? {'X-CSRF': '1'} : {}});
        return {status: r.status, headers: Object.fromEntries(r.headers)};
    }"""
    script = page.evaluate(fetched, ["/app.js", False])
    check(script["status"] == 200 and script["headers"].get("x-content-type-options") == "nosniff"
          and "javascript" in script["headers"].get("content-type", ""), "app.js: a script type, nosniff", script)
    user = page.evaluate(fetched, ["/bff/user", True])
    check(user["status"] == 401 and "no-store" in user["headers"].get("cache-control", ""),
          "/bff/user: 401, Cache-Control no-store", user)
    if stack.tls:
        check("nginx/" not in headers.get("server", ""), "nginx's version hidden (server_tokens off)",
              headers.get("server"))
        protocol = page.evaluate("performance.getEntriesByType('navigation')[0].nextHopProtocol")
        check(protocol == "h2", "HTTP/2 over TLS, as the shipped file listens", protocol)
    context.close()


# Every error code of the gateway's front-end contract (and the sign-in error path's).
ERROR_CODES = {
    400: ["mfa_required", "invalid_grant", "invalid_request"], 401: ["unauthenticated", "session_expired",
    "insufficient_user_authentication"], 403: ["csrf_failed", "session_too_old", "app_request_invalid", "access_denied"],
    404: ["not_found"], 408: ["request_timeout"], 410: ["expired_token"], 429: ["rate_limited", "too_many_requests"],
    502: ["upstream_error"], 503: ["store_unavailable", "upstream_unavailable"], 504: ["upstream_timeout"],
    0: ["network_error"],
}
CALLBACK_CODES = ["access_denied", "login_required", "consent_required", "interaction_required", "invalid_state",
                  "invalid_response", "invalid_request", "server_error"]


def run_messages(stack, browser, shots: Path) -> None:
    """The app's sentence for each error code: its own, never the generic one."""
    demo = Demo(stack, browser, shots)
    demo.open()
    said = demo.page.evaluate("""async ([codes, callbacks]) => {
        const { describe, describeCallback } = await import('/messages.js');
        const { BffError } = await import('/bff.js');
        const out = {};
        for (const [status, list] of Object.entries(codes))
            for (const code of list) out[code + ' ' + status] = describe(new BffError(+status, { error: code }));
        for (const code of callbacks) out['?error=' + code] = describeCallback(code);
        out['a problem'] = describe(new BffError(400, { title: 'NativeGrants.Disabled', detail: 'Native grants are off.' }));
        out['a Modgud sentence'] = describe(new BffError(400, { error: 'Firstname is required.' }));
        return out;
    }""", [ERROR_CODES, CALLBACK_CODES])
    generic = [k for k, v in said.items() if not v or v.startswith("Something went wrong")]
    check(len(said) == 30 and generic == [], "a message of its own for every error code", generic or said)
    check("not available" in said["a problem"] and said["a Modgud sentence"] == "Firstname is required.",
          "…Modgud's problem and its plain sentence shown as such", said)
    demo.finish("messages")
