#!/bin/bash
# Container health check: GET /healthz on the admin listener, with bash's
# /dev/tcp (the image has no curl). Exit 0 on "HTTP/1.1 200", else 1.
# The address comes from BFF_ADMIN_LISTEN; a wildcard or localhost bind is
# reached on the loopback address. Needs bash, not sh: dash has no /dev/tcp.
set -u

listen="${BFF_ADMIN_LISTEN:-127.0.0.1:9090}"
port="${listen##*:}"
host="${listen%:*}"
host="${host#[}"
host="${host%]}"
case "$host" in
    # [::] is dual-stack (Docs/configuration.md), so IPv4 loopback reaches it too.
    0.0.0.0 | :: | localhost | "") host=127.0.0.1 ;;
esac

exec 3<>"/dev/tcp/$host/$port" || exit 1
printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
IFS= read -r -t "${HEALTHCHECK_READ_TIMEOUT_S:-3}" status <&3 || exit 1
exec 3>&-
case "$status" in
    "HTTP/1.1 200"*) exit 0 ;;
    *) exit 1 ;;
esac
