"""bff.js in a real browser: Debian's chromium, driven by Playwright, runs the
unit tests of Deploy/demo/bff.js (Tests/Browser/bffjs/test.js) against a fake
fetch, with a CDP virtual authenticator for the WebAuthn conversion of real
credentials. No gateway and no Node: Python's http.server on 127.0.0.1 serves
the test page (Tests/Browser/bffjs: test.html, test.js running the tests
that fetch.test.js, helpers.test.js and webauthn.test.js register) and bff.js,
opened as http://localhost:PORT (a secure context).

Also checked here: bff.js minified (rjsmin) stays under 5,000 bytes and imports
nothing, and bff.d.ts names every export of the module, every member of the
object createBff returns and every field of BffError, and nothing more.

Usage: python3 Tests/Browser/bffjs_test.py
Needs: chromium (apt), playwright and rjsmin (PyPI). Exit status 1 on any
failed check.
"""
import http.server
import re
import threading
import urllib.parse
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout, sync_playwright

try:
    import rjsmin
except ImportError:
    raise SystemExit("bffjs_test.py needs rjsmin from PyPI (python3 -m pip install rjsmin==1.3.0)")

from browserlib import check, failures, free_port

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "Deploy" / "demo"
PAGES = ROOT / "Tests" / "Browser" / "bffjs"
SERVED = {"/bff.js": DEMO / "bff.js", "/bff.d.ts": DEMO / "bff.d.ts",
          **{"/" + path.name: path for path in PAGES.iterdir() if path.is_file()}}
SIZE_LIMIT = 5000
EXPECTED_PAGE_ERROR = "expected by the test"   # the throwing event handler test.js installs


class Handler(http.server.SimpleHTTPRequestHandler):
    """The files above and nothing else (404)."""

    def translate_path(self, path: str) -> str:
        return str(SERVED.get(urllib.parse.urlsplit(path).path, PAGES / "missing"))

    def log_message(self, format: str, *args) -> None:
        pass


def dts_names(dts: str) -> tuple[set[str], set[str], set[str]]:
    """The module's exported values, the members of interface Bff and the fields of class BffError."""
    exports = set(re.findall(r"^export (?:class|function|const) (\w+)", dts, re.M))

    def members(header: str) -> set[str]:
        body = dts.split(header, 1)[1].split("\n}", 1)[0]
        return set(re.findall(r"^  (?:readonly )?(\w+)\??[(:]", body, re.M)) - {"constructor"}

    return exports, members("export interface Bff {"), members("export class BffError extends Error {")


def check_module_files() -> None:
    source = (DEMO / "bff.js").read_text()
    size = len(rjsmin.jsmin(source).encode())
    check(size < SIZE_LIMIT, f"bff.js minified (rjsmin) is {size} bytes, under {SIZE_LIMIT}")
    check(not re.search(r"^\s*(import|export \* from|export \{[^}]*\} from)\b", source, re.M) and "import(" not in source,
          "bff.js imports nothing")


def run_page(port: int, dts: str) -> None:
    page_errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost"])
        context = browser.new_context()
        page = context.new_page()
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        cdp = context.new_cdp_session(page)
        cdp.send("WebAuthn.enable")
        cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}})
        page.goto(f"http://localhost:{port}/test.html")
        try:
            page.wait_for_function("window.results && window.results.done", timeout=60_000)
        except PlaywrightTimeout:
            check(False, "the test page ran to the end within 60 s", page_errors)
            return
        results = page.evaluate("window.results")
        for name in results["passed"]:
            check(True, name)
        for failed in results["failed"]:
            check(False, failed["name"], failed["message"])
        check(len(results["passed"]) >= 20 and not results["failed"], f"{len(results['passed'])} tests in the page, none failed")

        exports, members, fields = dts_names(dts)
        actual = page.evaluate("""async () => {
            const m = await import('./bff.js');
            const bff = m.createBff({ fetch: async () => new Response(null), credentials: {}, navigate() {} });
            return { exports: Object.keys(m), members: Object.keys(bff),
                     fields: Object.keys(new m.BffError(401, { error: 'x' }, new Headers())) };
        }""")
        check(set(actual["exports"]) == exports, "bff.d.ts names every export of bff.js, and only those",
              {"bff.js": sorted(actual["exports"]), "bff.d.ts": sorted(exports)})
        check(set(actual["members"]) == members, "bff.d.ts's Bff names every member createBff returns, and only those",
              {"bff.js": sorted(actual["members"]), "bff.d.ts": sorted(members)})
        check(set(actual["fields"]) == fields, "bff.d.ts's BffError names every field, and only those",
              {"bff.js": sorted(actual["fields"]), "bff.d.ts": sorted(fields)})
        browser.close()
    unexpected = [e for e in page_errors if EXPECTED_PAGE_ERROR not in e]
    check(unexpected == [], "no uncaught error in the page", unexpected)


def main() -> int:
    check_module_files()
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run_page(port, (DEMO / "bff.d.ts").read_text())
    finally:
        server.shutdown()
        server.server_close()
    if failures:
        print(f"{len(failures)} bff.js check(s) failed: {failures}")
        return 1
    print("all bff.js checks passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
