"""Browser tests of the demo app (Deploy/demo): Debian's chromium, driven by
Playwright, against nginx serving the app and forwarding /bff/ to the real
gateway (a debug build), with modgud-sim and redis-server, all on loopback
(demostack.py). Passkeys go through CDP's virtual authenticator.

Every flow of the app, as a person drives it (demo_flows.py): e-mail code with
the TOTP second factor (the simulator's grace@), passkey enrolment, sign-in
by button and by the e-mail field's autofill, removal behind the step-up
prompt; the magic link's landing page; the sign-in on the identity
provider's pages and its sign-out; the rate-limit countdown with the
simulator throttling; the sessions list, signing out another device and
everywhere; logout; a keyboard-only sign-in; every input's label and
autocomplete token; the layout at 360 px; no console error, with the pages
under a Content-Security-Policy without inline script or style (checked on
the answer); the gateway's Cache-Control on /bff/. A screenshot of each main
screen is saved in the temporary directory the run names.

With --tls, the same flows run over https://localhost:PORT through
Deploy/nginx/modgud-bff.conf (only its site-specific lines rewritten) with a
certificate made for the run, which chromium trusts by its key alone
(--ignore-certificate-errors-spki-list); the headers that file and the
gateway set are checked on the real answers, and HTTP/2. With --static, no
nginx: the gateway serves the app itself from BFF_STATIC_ROOT, as
Deploy/local/run does, and the page headers checked are the gateway's own.
--screenshots DIR copies the main screens there as well (Docs/screenshots).

Usage: python3 Tests/Browser/demo_test.py [--tls | --static] [--screenshots DIR] [binary directory, default .build/debug]
Needs: chromium (apt), playwright (PyPI), nginx, redis-server, openssl.
Exit status 1 on any failed check.
"""
import shutil
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from browserlib import check, failures
from demo_flows import (REGISTRATION_REALM, run_code_and_passkeys, run_code_flow, run_headers, run_keyboard,
                        run_loopback_address, run_magic_link, run_messages, run_narrow, run_rate_limit,
                        run_registration, run_sessions)
from demostack import ROOT, Stack


def main(argv: list[str]) -> int:
    tls, static = "--tls" in argv, "--static" in argv
    argv = [a for a in argv if a not in ("--tls", "--static")]
    publish = None
    if "--screenshots" in argv:
        i = argv.index("--screenshots")
        publish = Path(argv[i + 1]).resolve()
        del argv[i:i + 2]
    binaries = (Path(argv[0]) if argv else ROOT / ".build" / "debug").resolve()
    started = time.monotonic()
    with Stack(binaries, tls=tls, static=static) as stack:
        shots = stack.work / "screenshots"
        shots.mkdir()
        flows = [run_code_and_passkeys, run_magic_link, run_code_flow, run_rate_limit, run_sessions, run_keyboard,
                 run_narrow, run_messages, run_loopback_address]
        with_browser(stack, lambda browser: [flow(stack, browser, shots) for flow in flows])
        with Stack(binaries, tls=tls, sim_config=REGISTRATION_REALM, static=static) as second:
            with_browser(second, lambda browser: run_registration(second, browser, shots))
        if publish:
            publish.mkdir(parents=True, exist_ok=True)
            for name in ("signin", "second-factor", "account", "narrow-signin", "narrow-account"):
                shutil.copy(shots / f"{name}.png", publish / f"demo-{name}.png")
        print(f"screenshots in {shots}; {time.monotonic() - started:.1f} s")
        if failures:
            print(f"{len(failures)} demo check(s) failed; logs in {stack.work}")
            return 1
    print("all demo checks passed")
    return 0


def with_browser(stack: Stack, run) -> None:
    """Runs `run(browser)` in Debian's chromium, which resolves only localhost and 127.0.0.1
    and, over TLS, trusts the run's certificate by its key alone; the headers first."""
    args = ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"]
    if stack.tls:
        args.append(f"--ignore-certificate-errors-spki-list={stack.spki}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=args)
        run_headers(stack, browser)
        run(browser)
        browser.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
