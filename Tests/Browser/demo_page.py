"""The demo app in one browser context, as a person uses it: labels, buttons
and keys; its console watched, its screens saved (demo_flows.py drives it)."""
import re
import time
from pathlib import Path

from browserlib import check, get_json, post_json, totp

GRACE = "grace@example.com"    # the simulator's user with a second factor (TOTP)
ADA = "ada@example.com"        # one without
TOTP_SECRET = "JBSWY3DPEHPK3PXP"
PASSWORD = "simulator"         # the simulator's sign-in page password for both

# Chromium reports every answer other than 2xx in the console; these are the app's expected
# ones (401 without a session, 400 mfa_required or a wrong code, 429 throttled).
EXPECTED_STATUS = re.compile(r"^Failed to load resource: the server responded with a status of (400|401|429) ")


class Demo:
    """One browser context on the demo, with its console watched and its screens saved."""

    def __init__(self, stack, browser, shots: Path, *, width: int = 1024, authenticator: bool = False):
        self.stack = stack
        self.shots = shots
        self.context = browser.new_context(viewport={"width": width, "height": 800})
        self.page = self.context.new_page()
        self.console: list[str] = []
        # The app's console only: the simulator's pages (the code flow) are not the demo's.
        self.page.on("console", lambda m: m.type == "error" and not EXPECTED_STATUS.match(m.text)
                     and self.page.url.startswith(stack.origin) and self.console.append(m.text))
        self.page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"))
        if authenticator:
            self.cdp = self.context.new_cdp_session(self.page)
            self.cdp.send("WebAuthn.enable")
            self.authenticator = self.cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]

    def presence(self, on: bool):
        """Whether the virtual authenticator answers by itself (off: as a person who has not
        picked the passkey yet, so the autofill request stays open)."""
        self.cdp.send("WebAuthn.setAutomaticPresenceSimulation", {"authenticatorId": self.authenticator, "enabled": on})

    def open(self, path: str = "/"):
        self.page.goto(self.stack.origin + path)
        self.page.wait_for_selector("#loading", state="hidden")

    def screen(self) -> str:
        """The id of the screen shown."""
        return self.page.evaluate("[...document.querySelectorAll('main > section')].find(s => !s.hidden)?.id")

    def wait_until(self, script: str, timeout: float = 10.0):
        """Polls `script` (an expression) until it is true; page.wait_for_function would
        need 'unsafe-eval', which the pages' CSP does not allow."""
        deadline = time.monotonic() + timeout
        while not self.page.evaluate(script):
            if time.monotonic() > deadline:
                raise TimeoutError(f"not true within {timeout} s: {script}")
            time.sleep(0.05)

    def wait_screen(self, name: str, timeout: float = 10_000):
        self.page.wait_for_selector(f"#{name}:not([hidden])", timeout=timeout)

    def focused(self) -> str:
        return self.page.evaluate("document.activeElement?.id ?? ''")

    def alert(self) -> str:
        return self.page.evaluate("document.getElementById('alert').hidden ? '' : document.getElementById('alert').textContent")

    def status(self) -> str:
        return self.page.text_content("#status") or ""

    def shot(self, name: str):
        self.page.screenshot(path=str(self.shots / f"{name}.png"), full_page=True)

    def user_status(self) -> int:
        return self.page.evaluate("fetch('/bff/user', {headers: {'X-CSRF': '1'}}).then(r => r.status)")

    def mail(self, email: str) -> dict:
        return get_json(f"{self.stack.sim}/dev/mailbox?email={email}&limit=1")[0]

    def sign_in_with_code(self, email: str, second_factor: bool = False, names: tuple[str, str] | None = None):
        page = self.page
        page.get_by_label("E-mail address").fill(email)
        if names:
            page.get_by_label("First name").fill(names[0])
            page.get_by_label("Last name").fill(names[1])
        page.get_by_role("button", name="E-mail me a code").click()
        self.wait_screen("code")
        page.get_by_label("Code from the e-mail").fill(self.mail(email)["code"])
        page.get_by_role("button", name="Sign in", exact=True).click()
        if second_factor:
            self.wait_screen("mfa")
            page.get_by_label("Authenticator code").fill(totp(TOTP_SECRET))
            page.get_by_role("button", name="Continue", exact=True).click()
        self.wait_screen("account")

    def finish(self, what: str):
        check(self.console == [], f"{what}: no console error", self.console)
        self.context.close()


def sim_config(stack, patch: dict):
    post_json(f"{stack.sim}/dev/config", patch)
