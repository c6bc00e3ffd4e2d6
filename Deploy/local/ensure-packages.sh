#!/usr/bin/env bash
# Installs the Debian packages the gateway, its tests and its benchmarks
# need, when they are missing. Idempotent; quiet when nothing is missing.
# Usage: Deploy/local/ensure-packages.sh [runtime|test|bench]
# The test role also installs Playwright from PyPI (test tooling only: the
# browser tests drive Debian's chromium with it; never `playwright install`).
set -euo pipefail

role="${1:-runtime}"
packages=(pkg-config libssl-dev libcurl4-openssl-dev libhiredis-dev redis-server)
case "$role" in
    test) packages+=(python3 python3-pip openssl nginx-light chromium) ;;
    bench) packages+=(python3 nginx-light wrk valgrind) ;;
esac
if [ "$role" = test ]; then packages+=(prometheus); fi  # prometheus and promtool: Deploy/prometheus and its test

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    # Through env: sudo's env_reset would drop a variable set in front of it.
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The version the browser tests were written against (Debian 12's chromium
# is newer than it needs: Chrome 129+ for WebAuthn's JSON helpers).
playwright_version=1.65.2
if [ "$role" = test ] && [ "$(python3 -c 'import importlib.metadata as m; print(m.version("playwright"))' 2>/dev/null)" != "$playwright_version" ]; then
    echo "installing: playwright==$playwright_version (PyPI)"
    # Debian's own python3 is externally managed: retry with the override.
    python3 -m pip install -q "playwright==$playwright_version" >/dev/null 2>&1 \
        || python3 -m pip install -q --break-system-packages "playwright==$playwright_version" >/dev/null
fi

# Swift lives in /opt/swift on these machines; make sure it is found.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    echo "export PATH=/opt/swift/usr/bin:\$PATH  # add this to your shell" >&2
fi
