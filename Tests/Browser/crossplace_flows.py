"""Browser tests of sign-ins that cross from one place to another
(Docs/handoff.md), each in fresh browser contexts of the same chromium:

- The native app hand-off: a context acting as the app's web view registers
  a PKCE challenge; a second context acting as the system browser signs in
  with an e-mail code for that request and presses "continue in the app";
  the app-scheme navigation that follows is captured (Playwright sees the
  custom-scheme URL), and the web view redeems its code with the verifier
  and is signed in, while the system browser is signed out.
- Cross-device sign-in with a match code: one context starts it and shows
  the code; another signs in at the simulator's verification page and types
  that code; the first is signed in at its next poll, and a third context
  that polls the same request id gets nothing.
"""
import base64
import hashlib
import os
import time
from urllib.parse import parse_qs, urlsplit

from browserlib import check, get_json

APP_CALLBACK = "mowdeck-test://auth/callback"
APP_EMAIL = "ada@example.com"          # a simulator user without a second factor
APPROVER_EMAIL = "ada@example.com"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def call(page, method: str, path: str, body=None):
    return page.evaluate("([m, p, b]) => bff(m, p, b === null ? undefined : b)", [method, path, body])


def cookies_named(context, name: str):
    return [c for c in context.cookies() if c["name"] == name]


def run_app_handoff(browser, origin: str, sim_port: int) -> None:
    verifier = b64url(os.urandom(32))
    challenge = b64url(hashlib.sha256(verifier.encode()).digest())
    web_view = browser.new_context()
    app_page = web_view.new_page()
    app_page.goto(origin + "/index.html")
    started = call(app_page, "POST", "/bff/app-login/start", {"codeChallenge": challenge, "codeChallengeMethod": "S256"})
    request_id = (started["json"] or {}).get("requestId", "")
    check(started["status"] == 201 and len(request_id) >= 43 and started["json"].get("expiresIn") == 600,
          "app hand-off: POST /bff/app-login/start from the app's web view: 201 with a request id", started)

    system = browser.new_context()
    page = system.new_page()
    app_state = b64url(os.urandom(12))
    page.goto(f"{origin}/index.html?appRequest={request_id}&appState={app_state}")
    check(call(page, "POST", "/bff/otp/request", {"email": APP_EMAIL})["status"] == 200,
          "…the system browser asks for an e-mail code")
    code = get_json(f"http://127.0.0.1:{sim_port}/dev/mailbox?email={APP_EMAIL}")[-1]["code"]
    signed_in = call(page, "POST", "/bff/otp/redeem", {"email": APP_EMAIL, "code": code})
    check(signed_in["status"] == 200, "…and signs in with it", signed_in)
    described = call(page, "GET", f"/bff/app-login/{request_id}")
    check(described["status"] == 200 and described["json"].get("app") and described["json"].get("expiresIn", 0) > 0,
          "…GET /bff/app-login/{requestId} names the app", described)

    with page.expect_request(lambda request: request.url.startswith(APP_CALLBACK)) as captured:
        page.get_by_role("button", name="Continue in the app").click()
    callback = urlsplit(captured.value.url)
    query = parse_qs(callback.query)
    check(f"{callback.scheme}://{callback.netloc}{callback.path}" == APP_CALLBACK and sorted(query) == ["code", "state"]
          and query["state"] == [app_state] and len(query["code"][0]) >= 43,
          "…'continue in the app' navigates to the configured callback with a code and the app's state, nothing else",
          sorted(query))
    check(cookies_named(system, "__Host-bff") == [] and call(page, "GET", "/bff/user")["status"] == 401,
          "…and the system browser's session has ended (cookie gone, /bff/user 401)")

    handoff_code = query["code"][0]
    redeemed = call(app_page, "POST", "/bff/app-login/session", {"code": handoff_code, "codeVerifier": verifier})
    check(redeemed["status"] == 200 and (redeemed["json"] or {}).get("user", {}).get("email") == APP_EMAIL,
          "the web view redeems the code with its verifier: 200 with the user", redeemed)
    cookies = cookies_named(web_view, "__Host-bff")
    check(len(cookies) == 1 and cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Strict",
          "…its own __Host-bff cookie, HttpOnly, SameSite=Strict", cookies)
    user = call(app_page, "GET", "/bff/user")
    check(user["status"] == 200 and user["json"]["user"]["email"] == APP_EMAIL, "…and /bff/user answers there", user)
    listed = call(app_page, "GET", "/bff/sessions")
    methods = [s.get("method") for s in (listed["json"] or {}).get("sessions", [])]
    check(listed["status"] == 200 and methods == ["app"], "…the user's one session, method app", listed)
    again = call(app_page, "POST", "/bff/app-login/session", {"code": handoff_code, "codeVerifier": verifier})
    check(again["status"] == 400 and (again["json"] or {}).get("error") == "invalid_grant",
          "the same code a second time: 400 invalid_grant", again)
    call(app_page, "POST", "/bff/logout")
    system.close()
    web_view.close()


def run_cross_device(browser, origin: str, sim_port: int) -> None:
    screen = browser.new_context()
    page = screen.new_page()
    page.goto(origin + "/index.html")
    started = page.evaluate("startCrossDevice()")
    body = started["json"] or {}
    request_id = body.get("requestId", "")
    sim = f"http://127.0.0.1:{sim_port}"
    check(started["status"] == 201 and body.get("matchCode") and body.get("verificationUri") == sim + "/connect/verify"
          and body.get("interval", 0) >= 1 and body.get("expiresIn", 0) > 0,
          "cross-device: POST /bff/cross-device/start: 201 with the match code and the plain verification URI", body)
    check("verification_uri_complete" not in str(body) and "user_code" not in body.get("verificationUri", ""),
          "…no verification link that carries the code", body)
    cookie = cookies_named(screen, "__Host-bff-xd")
    check(len(cookie) == 1 and cookie[0]["httpOnly"] and cookie[0]["secure"] and cookie[0]["sameSite"] == "Strict",
          "…the starting browser holds __Host-bff-xd: HttpOnly, Secure, SameSite=Strict", cookie)
    shown = page.text_content("#match-code")
    check(shown == body.get("matchCode"), "…and shows the match code", shown)
    context_line = call(page, "GET", f"/bff/cross-device/{request_id}/context")
    check(context_line["status"] == 200 and context_line["json"].get("address") == "127.0.0.1"
          and "startedSecondsAgo" in context_line["json"] and context_line["json"].get("device"),
          "GET …/context: when, from which device and address it started", context_line)
    pending = call(page, "POST", "/bff/cross-device/poll", {"requestId": request_id})
    check(pending["status"] == 202 and pending["json"].get("status") == "pending", "a poll before approval: 202 pending", pending)

    stranger = browser.new_context()
    stranger_page = stranger.new_page()
    stranger_page.goto(origin + "/index.html")
    refused = call(stranger_page, "POST", "/bff/cross-device/poll", {"requestId": request_id})
    check(refused["status"] == 403 and refused["json"].get("error") == "access_denied",
          "a poll of that request id from another browser: 403 access_denied", refused)

    phone = browser.new_context()
    phone_page = phone.new_page()
    phone_page.goto(body["verificationUri"])
    phone_page.get_by_label("E-mail address").fill(APPROVER_EMAIL)
    phone_page.get_by_label("Password").fill("simulator")
    with phone_page.expect_navigation():
        phone_page.get_by_role("button", name="Sign in").click()
    check(phone_page.url.startswith(sim + "/connect/verify"), "the approving device signs in at the simulator, back at its verification page", phone_page.url)
    phone_page.get_by_label("Code shown on your device").fill(shown or "")
    with phone_page.expect_navigation():
        phone_page.get_by_role("button", name="Approve").click()

    deadline, answer = time.monotonic() + 15, pending
    while time.monotonic() < deadline:
        answer = call(page, "POST", "/bff/cross-device/poll", {"requestId": request_id})
        if answer["status"] != 202:
            break
        time.sleep(0.3)
    check(answer["status"] == 200 and (answer["json"] or {}).get("user", {}).get("email") == APPROVER_EMAIL,
          "…and the starting browser is signed in at its next poll", answer)
    check(cookies_named(screen, "__Host-bff-xd") == [] and len(cookies_named(screen, "__Host-bff")) == 1,
          "…with a session cookie, the xd cookie gone", [c["name"] for c in screen.cookies()])
    listed = call(page, "GET", "/bff/sessions")
    methods = [s.get("method") for s in (listed["json"] or {}).get("sessions", []) if s.get("current")]
    check(methods == ["cross-device"], "…its session's method: cross-device", listed)
    check(call(stranger_page, "GET", "/bff/user")["status"] == 401
          and call(stranger_page, "POST", "/bff/cross-device/poll", {"requestId": request_id})["status"] == 403,
          "the other browser is still signed out and still refused")
    call(page, "POST", "/bff/logout")
    for context in (stranger, phone, screen):
        context.close()
