#!/usr/bin/env bash
# Builds the HTTPRequestParser fuzzer (libFuzzer + AddressSanitizer) and runs
# it for a bounded time on a seed corpus of good and bad requests.
#
# Usage: Tests/Fuzz/run.sh [seconds=60] [out-dir=/tmp/parser-fuzz]
# A finding leaves a crash-* file in <out-dir>/artifacts/; replay it with
#   <out-dir>/parser-fuzzer <out-dir>/artifacts/crash-...
set -euo pipefail

cd "$(dirname "$0")/../.."
seconds="${1:-60}"
out="${2:-/tmp/parser-fuzz}"
swiftc="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"

sources=(
    Sources/HTTP/HTTPHeaders.swift
    Sources/HTTP/HTTPTypes.swift
    Sources/HTTP/HTTPParserTypes.swift
    Sources/HTTP/HTTPRequestParser*.swift
)

mkdir -p "$out/corpus" "$out/artifacts"
echo "building $out/parser-fuzzer"
if ! "$swiftc" -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 \
    -module-name ParserFuzz Tests/Fuzz/ParserFuzz.swift "${sources[@]}" -o "$out/parser-fuzzer" \
    > "$out/build.log" 2>&1; then
    cat "$out/build.log"
    exit 1
fi
# ld.gold warns about every ASan helper symbol; show anything else.
grep -v 'Cannot export local symbol' "$out/build.log" || true

# Seed corpus: a few good and bad requests (kept if the corpus already has more).
seed() { printf '%b' "$2" > "$out/corpus/seed-$1"; }
seed get        'GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n'
seed http10     'GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n'
seed post       'POST /f HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello'
seed chunked    'POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;n=v;q="x y"\r\nhello\r\n0\r\nX-T: 1\r\n\r\n'
seed pipelined  '\r\nGET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nokOPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n'
seed absolute   'GET http://a:80/x HTTP/1.1\r\nHost: [::1]:80\r\n\r\n'
seed cl-te      'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
seed te-gzip    'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'
seed obs-fold   'GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n'
seed bare-lf    'GET / HTTP/1.1\nHost: a\n\n'
seed version    'GET / HTTP/2.0\r\nHost: a\r\n\r\n'
seed bad-chunk  'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n'

cat > "$out/http.dict" <<'DICT'
"\x0d\x0a"
"\x0d\x0a\x0d\x0a"
"HTTP/1.1"
"HTTP/1.0"
"Host: "
"Content-Length: "
"Transfer-Encoding: "
"chunked"
"Connection: "
"close"
"keep-alive"
"Expect: "
"100-continue"
";"
"="
"\x22"
"OPTIONS * "
"http://"
DICT

echo "fuzzing for ${seconds}s (log: $out/fuzz.log)"
status=0
SWIFT_BACKTRACE=enable=no "$out/parser-fuzzer" "$out/corpus" -dict="$out/http.dict" -max_total_time="$seconds" \
    -artifact_prefix="$out/artifacts/" -print_final_stats=1 > "$out/fuzz.log" 2>&1 || status=$?

grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done |^==[0-9]+==|^SUMMARY|Fatal error|artifact_prefix' "$out/fuzz.log" || true
execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || echo '?')"
echo "exec count: $execs in ${seconds}s (status $status)"
exit "$status"
