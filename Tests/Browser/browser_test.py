"""Browser tests: Debian's chromium, driven by Playwright, against the real
gateway (debug build), modgud-sim, redis-server and nginx serving the front
end, all on loopback.

nginx listens on http://localhost:PORT (a secure context for cookies and
WebAuthn), serves Tests/Browser/www and forwards /bff/ to the gateway, whose
BFF_PUBLIC_ORIGIN is that origin and which trusts 127.0.0.1 as its proxy.
The test page calls the gateway as a front end would (Docs/openapi.yaml); Python
reads the e-mailed code from the simulator's dev mailbox. Passkeys go
through CDP's virtual authenticator (ctap2, internal, resident key, user
verification) and the browser's own WebAuthn API.

What is checked, in a real browser:
- CSRF: a same-origin POST without X-CSRF is refused (403 csrf_failed) and
  changes nothing; a cross-site form POST from another site (127.0.0.1 is
  another site than localhost) is refused and the session survives it.
- Sign-in by e-mail code and a TOTP second factor (the simulator's grace@
  has one): the mfa_token stays in the gateway behind the flow cookie;
  the session cookie as the browser stored it
  (__Host-bff, HttpOnly, Secure, SameSite=Strict, Path=/, host-only) and
  invisible to JavaScript; /bff/user answers with the user.
- Passkeys: enrolment with the browser's navigator.credentials.create, then
  sign-out and sign-in with navigator.credentials.get.
- Logout: 204, the cookie is gone, /bff/user answers 401.
- Sign-in through Modgud's own pages: /bff/login → the simulator's sign-in
  page (password, then TOTP) → /bff/callback → the return path; the
  SameSite=Strict session cookie is sent on the next fetch after that
  cross-site redirect chain; logout answers the end-session URL, which the
  simulator takes. In a fresh browser, the same flow through PAR (no state
  or PKCE challenge in the URL), then a sign-out at the simulator ends the
  session through the back channel: /bff/user answers 401 within two seconds.
- The native app hand-off and cross-device sign-in with a match code, each
  across several browser contexts (crossplace_flows.py).

Usage: python3 Tests/Browser/browser_test.py [binary directory, default .build/debug]
Needs: chromium (apt), playwright (PyPI), nginx, redis-server; Tests/run
installs them. Exit status 1 on any failed check.
"""
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from crossplace_flows import APP_CALLBACK, run_app_handoff, run_cross_device
from browserlib import check, failures, free_port, get_json, post_json, totp, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
WWW = ROOT / "Tests" / "Browser" / "www"
EMAIL = "grace@example.com"             # the simulator's user with a second factor (TOTP)
CODE_FLOW_EMAIL = "ada@example.com"     # a simulator user without one
TOTP_SECRET = "JBSWY3DPEHPK3PXP"


def main() -> int:
    binaries = (Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "debug").resolve()
    work = Path(tempfile.mkdtemp(prefix="bff-browser-"))
    work.chmod(0o755)
    # The pages go where nginx's workers (user nobody when run as root) can
    # read them, whatever the checkout's permissions.
    www = work / "www"
    shutil.copytree(WWW, www)
    for path in [www, *www.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    redis_port, sim_port, gateway_port, admin_port, front_port = (free_port() for _ in range(5))
    origin = f"http://localhost:{front_port}"
    processes: list[subprocess.Popen] = []

    def start(argv, name, env=None):
        log = open(work / f"{name}.log", "w")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work)
        processes.append(process)
        return process

    try:
        redis = start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "no", "--dir", str(work)], "redis")
        sim = start([str(binaries / "modgud-sim"), "--listen", f"127.0.0.1:{sim_port}", "--jitter-ms", "0",
                     "--rate-limits", "off", "--bff-origins", origin, "--device-code-interval", "1",
                     "--log-level", "warning"], "sim")
        gateway = start([str(binaries / "modgud-bff")], "gateway", env={
            "PATH": "/usr/bin:/bin",
            "BFF_LISTEN": f"127.0.0.1:{gateway_port}",
            "BFF_ADMIN_LISTEN": f"127.0.0.1:{admin_port}",
            "BFF_PUBLIC_ORIGIN": origin,
            "BFF_MODGUD_URL": f"http://127.0.0.1:{sim_port}",
            "BFF_CLIENT_ID": "bff",
            "BFF_CLIENT_SECRET": "bff-secret",
            "BFF_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
            "BFF_TRUSTED_PROXIES": "127.0.0.1/32",
            "BFF_APP_CALLBACK_URI": APP_CALLBACK,
            "BFF_APP_NAME": "MowDeck",
            "BFF_CROSS_DEVICE": "true",
        })
        (work / "nginx.conf").write_text(f"""
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
    access_log {work}/nginx-access.log;
    client_body_temp_path {work}/body; proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi; uwsgi_temp_path {work}/uwsgi; scgi_temp_path {work}/scgi;
    types {{ text/html html; }}
    server {{
        listen 127.0.0.1:{front_port};
        root {www};
        location /bff/ {{
            proxy_pass http://127.0.0.1:{gateway_port};
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}
    }}
}}
""")
        nginx_binary = shutil.which("nginx") or "/usr/sbin/nginx"   # /usr/sbin is not on every PATH
        nginx = start([nginx_binary, "-p", str(work), "-c", str(work / "nginx.conf")], "nginx")
        for port, process, name in ((redis_port, redis, "redis-server"), (sim_port, sim, "modgud-sim"),
                                    (gateway_port, gateway, "modgud-bff"), (front_port, nginx, "nginx")):
            wait_for_port(port, process, name)
        run_browser(origin, front_port, sim_port, work)
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    if failures:
        print(f"{len(failures)} browser check(s) failed; logs in {work}")
        return 1
    print("all browser checks passed")
    return 0


def run_browser(origin: str, front_port: int, sim_port: int, work: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"])
        context = browser.new_context()
        page = context.new_page()
        page.goto(origin + "/index.html")

        def bff(method: str, path: str, body=None, csrf: bool = True):
            return page.evaluate("([m, p, b, c]) => bff(m, p, b === null ? undefined : b, c)", [method, path, body, csrf])

        def session_cookies():
            return [c for c in context.cookies() if c["name"] == "__Host-bff"]

        check(bff("GET", "/bff/user")["status"] == 401, "no session before sign-in: /bff/user 401")

        # CSRF: a same-origin POST without the header changes nothing.
        forged = bff("POST", "/bff/otp/request", {"email": EMAIL}, csrf=False)
        check(forged["status"] == 403 and (forged["json"] or {}).get("error") == "csrf_failed",
              "POST without X-CSRF: 403 csrf_failed", forged)
        mailbox = get_json(f"http://127.0.0.1:{sim_port}/dev/mailbox?email={EMAIL}")
        check(mailbox == [], "…and no code was sent", mailbox)

        # Sign-in by e-mail code.
        requested = bff("POST", "/bff/otp/request", {"email": EMAIL})
        check(requested["status"] == 200, "POST /bff/otp/request: 200", requested)
        code = get_json(f"http://127.0.0.1:{sim_port}/dev/mailbox?email={EMAIL}")[0]["code"]
        prompted = bff("POST", "/bff/otp/redeem", {"email": EMAIL, "code": code})
        check(prompted["status"] == 400 and (prompted["json"] or {}).get("error") == "mfa_required"
              and prompted["json"].get("mfaMethods") == ["totp"] and "mfa_token" not in json.dumps(prompted["json"]),
              "POST /bff/otp/redeem: 400 mfa_required, the mfa_token kept in the gateway", prompted)
        flow = [c for c in context.cookies() if c["name"] == "__Host-bff-flow"]
        check(len(flow) == 1 and flow[0]["httpOnly"] and flow[0]["secure"] and flow[0]["sameSite"] == "Strict",
              "…the flow cookie stored HttpOnly, Secure, SameSite=Strict", flow)
        redeemed = bff("POST", "/bff/mfa", {"totpCode": totp(TOTP_SECRET)})
        check(redeemed["status"] == 200 and (redeemed["json"] or {}).get("user", {}).get("email") == EMAIL,
              "POST /bff/mfa with the TOTP code: 200 with the user", redeemed)
        check([c for c in context.cookies() if c["name"] == "__Host-bff-flow"] == [], "…the flow cookie is gone")
        cookies = session_cookies()
        check(len(cookies) == 1, "the browser stored one __Host-bff cookie", cookies)
        if cookies:
            cookie = cookies[0]
            check(cookie["httpOnly"] and cookie["secure"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/",
                  "…HttpOnly, Secure, SameSite=Strict, Path=/",
                  {k: cookie[k] for k in ("httpOnly", "secure", "sameSite", "path")})
            check(cookie["domain"] == "localhost", "…host-only (no Domain attribute)", cookie["domain"])
            visible = page.evaluate("document.cookie")
            check("__Host-bff" not in visible and cookie["value"] not in visible, "…invisible to JavaScript", visible)
        user = bff("GET", "/bff/user")
        check(user["status"] == 200 and user["json"]["user"]["email"] == EMAIL, "GET /bff/user: 200 with the user", user)

        # Passkey enrolment through the browser's WebAuthn API.
        cdp = context.new_cdp_session(page)
        cdp.send("WebAuthn.enable")
        cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}})
        enrolled = page.evaluate("enrolPasskey()")
        check(enrolled["status"] == 200, "passkey enrolment with navigator.credentials.create: 200", enrolled)
        listed = bff("GET", "/bff/passkeys")
        check(listed["status"] == 200 and isinstance(listed["json"], list) and len(listed["json"]) == 1,
              "GET /bff/passkeys lists the new passkey", listed)

        # A cross-site form POST (127.0.0.1 is another site) changes nothing.
        attacker = context.new_page()
        attacker.goto(f"http://127.0.0.1:{front_port}/cross-site.html")
        with attacker.expect_navigation():
            attacker.evaluate(f"attack('{origin}/bff/logout')")
        check(bff("GET", "/bff/user")["status"] == 200, "a cross-site form POST to /bff/logout leaves the session alone")
        access = (work / "nginx-access.log").read_text()
        check('"POST /bff/logout HTTP/1.1" 403' in access, "…the gateway refused it (403)",
              [line for line in access.splitlines() if "/bff/logout" in line])
        attacker.close()

        # Logout.
        logged_out = bff("POST", "/bff/logout")
        check(logged_out["status"] == 204, "POST /bff/logout: 204", logged_out)
        check(session_cookies() == [], "…the session cookie is gone", session_cookies())
        check(bff("GET", "/bff/user")["status"] == 401, "…and /bff/user answers 401")

        # Passkey sign-in with navigator.credentials.get.
        signed_in = page.evaluate("signInWithPasskey()")
        check(signed_in["status"] == 200 and (signed_in["json"] or {}).get("user", {}).get("email") == EMAIL,
              "passkey sign-in with navigator.credentials.get: 200 with the user", signed_in)
        check(len(session_cookies()) == 1, "…a new session cookie")
        check(bff("GET", "/bff/user")["status"] == 200, "…and /bff/user answers 200")
        bff("POST", "/bff/logout")

        # Sign-in through Modgud's own pages: /bff/login, the simulator's
        # sign-in page on another site, the callback, back at the front end.
        page.goto(f"{origin}/bff/login?returnUrl=%2Findex.html%3Fvia%3Dcode&loginHint={EMAIL}")
        check(page.url.startswith(f"http://127.0.0.1:{sim_port}/connect/authorize"), "/bff/login: at Modgud's page", page.url)
        flow = [c for c in context.cookies() if c["name"] == "__Host-bff-flow"]
        check(len(flow) == 1 and flow[0]["httpOnly"] and flow[0]["secure"] and flow[0]["sameSite"] == "Lax",
              "…the flow cookie stored HttpOnly, Secure, SameSite=Lax", flow)
        check(page.input_value("#email") == EMAIL, "…the e-mail pre-filled from loginHint")
        page.fill("#password", "simulator")
        page.click("button[type=submit]")
        page.fill("#totp_code", totp(TOTP_SECRET))
        with page.expect_navigation(url=f"{origin}/index.html?via=code"):
            page.click("button[type=submit]")
        check(page.url == f"{origin}/index.html?via=code", "…back at the front end's return path", page.url)
        cookies = session_cookies()
        check(len(cookies) == 1 and cookies[0]["sameSite"] == "Strict", "…a SameSite=Strict session cookie", cookies)
        user = bff("GET", "/bff/user")
        check(user["status"] == 200 and user["json"]["user"]["email"] == EMAIL,
              "…sent on the next fetch after the cross-site redirect chain: /bff/user 200", user)
        ended = bff("POST", "/bff/logout")
        end_url = (ended["json"] or {}).get("endSessionUrl", "")
        check(ended["status"] == 200 and end_url.startswith(f"http://127.0.0.1:{sim_port}/connect/logout?")
              and "id_token_hint=" in end_url, "POST /bff/logout of that session: 200 with the end-session URL", ended)
        page.goto(end_url)
        check(page.url.startswith(origin + "/"), "…which Modgud takes, back at the front end", page.url)
        check(bff("GET", "/bff/user")["status"] == 401, "…and /bff/user answers 401")
        run_code_flow(browser, origin, sim_port)
        run_app_handoff(browser, origin, sim_port)
        run_cross_device(browser, origin, sim_port)
        browser.close()


def run_code_flow(browser, origin: str, sim_port: int) -> None:
    """The authorization-code flow in a fresh browser: /bff/login → the
    simulator's sign-in page (127.0.0.1 is another site than localhost) →
    typed e-mail and password → back at the front end, signed in; then a
    sign-out at the simulator ends the gateway's session through the back
    channel."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(origin + "/index.html")
    page.goto(origin + "/bff/login?returnUrl=%2Findex.html%3Fsigned-in")
    sim = f"http://127.0.0.1:{sim_port}"
    check(page.url.startswith(sim + "/connect/authorize"), "GET /bff/login: the browser is at Modgud's sign-in page", page.url)
    check("request_uri=" in page.url and "state=" not in page.url and "code_challenge" not in page.url,
          "…through PAR: the URL carries a request_uri, not the state or the PKCE challenge", page.url)
    flow = [c for c in context.cookies() if c["name"] == "__Host-bff-flow"]
    check(len(flow) == 1 and flow[0]["httpOnly"] and flow[0]["secure"] and flow[0]["sameSite"] == "Lax",
          "…the flow cookie stored HttpOnly, Secure, SameSite=Lax", flow)
    page.get_by_label("E-mail address").fill(CODE_FLOW_EMAIL)
    page.get_by_label("Password").fill("simulator")
    with page.expect_navigation(url=origin + "/index.html?signed-in"):
        page.get_by_role("button", name="Sign in").click()
    check(page.url == origin + "/index.html?signed-in", "…back at the return URL after the callback", page.url)
    cookies = [c for c in context.cookies() if c["name"] == "__Host-bff"]
    check(len(cookies) == 1 and cookies[0]["sameSite"] == "Strict" and cookies[0]["httpOnly"],
          "…one __Host-bff cookie, SameSite=Strict, HttpOnly", cookies)
    user = page.evaluate("bff('GET', '/bff/user')")
    check(user["status"] == 200 and user["json"]["user"]["email"] == CODE_FLOW_EMAIL,
          "the next fetch after the cross-site redirect chain carries the SameSite=Strict cookie: /bff/user 200", user)

    # The user signs out at Modgud: its back-channel call ends the session.
    post_json(sim + "/dev/users/signout", {"email": CODE_FLOW_EMAIL})
    deadline, status = time.monotonic() + 2.0, 200
    while time.monotonic() < deadline and status != 401:
        status = page.evaluate("bff('GET', '/bff/user')")["status"]
        if status != 401:
            time.sleep(0.05)
    check(status == 401, "a sign-out at Modgud ends the session through the back channel within two seconds", status)
    context.close()


if __name__ == "__main__":
    sys.exit(main())
