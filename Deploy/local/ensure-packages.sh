#!/usr/bin/env bash
# Installs the Debian packages the gateway, its tests and its benchmarks
# need, when they are missing. Idempotent; quiet when nothing is missing.
# Usage: Deploy/local/ensure-packages.sh [runtime|test|bench]
# The test role also installs Playwright and rjsmin from PyPI (test tooling
# only: the browser tests drive Debian's chromium with Playwright; never
# `playwright install`).
set -euo pipefail

role="${1:-runtime}"
packages=(pkg-config libssl-dev libcurl4-openssl-dev libhiredis-dev redis-server)
case "$role" in
    test) packages+=(python3 python3-pip openssl nginx-light chromium redis-sentinel) ;;
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

# PyPI test tools, pinned: Playwright, the version the browser tests were
# written against (Debian 12's chromium is newer than it needs: Chrome 129+
# for WebAuthn's JSON helpers), and rjsmin, which measures bff.js minified.
if [ "$role" = test ]; then
    for pinned in playwright==1.65.2 rjsmin==1.3.0; do
        name="${pinned%%==*}" version="${pinned##*==}"
        installed="$(python3 -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)"
        [ "$installed" = "$version" ] && continue
        echo "installing: $pinned (PyPI)"
        # Debian's own python3 is externally managed: retry with the override.
        python3 -m pip install -q "$pinned" >/dev/null 2>&1 \
            || python3 -m pip install -q --break-system-packages "$pinned" >/dev/null
    done
fi

# Swift lives in /opt/swift on these machines; make sure it is found.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    echo "export PATH=/opt/swift/usr/bin:\$PATH  # add this to your shell" >&2
fi
