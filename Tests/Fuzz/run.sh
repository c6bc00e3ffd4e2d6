#!/usr/bin/env bash
# Builds three fuzzers (libFuzzer + AddressSanitizer) and runs each for a
# share of a bounded time on a seed corpus of its own: the HTTPRequestParser
# one (good and bad requests), the HTTP client's UpstreamResponseParser,
# ChunkedDecoder and ResponseHeadParser one (good and bad response heads
# and chunked bodies; libcurl's header lines read alike), both over the
# codec (Sources/HTTPCodec: field grammar, chunked bodies, length rules), and
# the JSON parser's (good and bad documents).
#
# Usage: Tests/Fuzz/run.sh [seconds=60] [out-dir=/tmp/parser-fuzz]
# `seconds` is the total fuzzing time, split among the three (the request
# fuzzer gets the largest share; each at least 1s). Exit status is non-zero
# when a build fails or a fuzzer finds something.
# A finding leaves a crash-* file in <out-dir>/artifacts/ (request parser),
# <out-dir>/response/artifacts/ or <out-dir>/json/artifacts/; replay it with
#   <out-dir>/parser-fuzzer <out-dir>/artifacts/crash-...
#   <out-dir>/response/response-fuzzer <out-dir>/response/artifacts/crash-...
#   <out-dir>/json/json-fuzzer <out-dir>/json/artifacts/crash-...
set -euo pipefail

cd "$(dirname "$0")/../.."
seconds="${1:-60}"
out="${2:-/tmp/parser-fuzz}"
swiftc="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"
swiftc_flags=(-sanitize=fuzzer,address -parse-as-library -O -swift-version 6)
resp="$out/response"

# The fuzzing time, split: the request parser first, with the largest share.
if [ "$seconds" -ge 3 ]; then
    response_seconds=$((seconds / 3))
    json_seconds=$((seconds / 3))
    request_seconds=$((seconds - response_seconds - json_seconds))
else
    request_seconds="$seconds"
    response_seconds="$seconds"
    json_seconds="$seconds"
fi

codec_sources=(Sources/HTTPCodec/*.swift)
sources=(
    Sources/HTTP/HTTPRequestHead.swift
    Sources/HTTP/HTTPParserTypes.swift
    Sources/HTTP/HTTPRequestParser*.swift
)

# Compiles with the fuzzing flags, the output added to the log given first;
# a failure shows it and stops the script.
compile() {   # log, then swiftc arguments
    local log="$1" output status=0
    shift
    output="$("$swiftc" "${swiftc_flags[@]}" "$@" 2>&1)" || status=$?
    printf '%s\n' "$output" >> "$log"
    if [ "$status" -ne 0 ]; then
        printf '%s\n' "$output"
        exit 1
    fi
    # ld.gold warns about every ASan helper symbol; show anything else.
    printf '%s\n' "$output" | grep -v -e 'Cannot export local symbol' -e '^$' || true
}

# The codec imports Core for two helpers (contiguous UTF-8, percent
# decoding): those files become a small static Core module, and the codec a
# static HTTPCodec module (public API only), which both fuzzers link.
core="$out/core"
codec="$out/codec"
mkdir -p "$out/corpus" "$out/artifacts" "$core" "$codec"
echo "building $out/parser-fuzzer"
: > "$out/build.log"
compile "$out/build.log" -module-name Core Sources/Core/String+ContiguousUTF8.swift Sources/Core/PercentDecoding.swift \
    -emit-module -emit-module-path "$core/Core.swiftmodule" -emit-library -static -o "$core/libCore.a"
compile "$out/build.log" -I "$core" -module-name HTTPCodec "${codec_sources[@]}" \
    -emit-module -emit-module-path "$codec/HTTPCodec.swiftmodule" -emit-library -static -o "$codec/libHTTPCodec.a"
compile "$out/build.log" -I "$core" -I "$codec" -module-name ParserFuzz Tests/Fuzz/ParserFuzz.swift "${sources[@]}" \
    "$codec/libHTTPCodec.a" "$core/libCore.a" -o "$out/parser-fuzzer"

# The response readers and the client's error type go into one module with
# the harness (internal access), over the codec. Nothing from CCurl or the
# rest of HTTPClient is needed.
response_sources=(
    Sources/HTTPClient/UpstreamResponseParser.swift
    Sources/HTTPClient/ChunkedDecoder.swift
    Sources/HTTPClient/ResponseLimits.swift
    Sources/HTTPClient/ResponseHeadParser.swift
    Sources/HTTPClient/HTTPClientError.swift
)
mkdir -p "$resp/corpus" "$resp/artifacts"
echo "building $resp/response-fuzzer"
: > "$resp/build.log"
compile "$resp/build.log" -module-name ResponseParserFuzz -I "$codec" -I "$core" \
    Tests/Fuzz/ResponseParserFuzz.swift Tests/Fuzz/ResponseHeadParserFuzz.swift "${response_sources[@]}" \
    "$codec/libHTTPCodec.a" "$core/libCore.a" -o "$resp/response-fuzzer"

# Seed corpus: a few good and bad requests (kept if the corpus already has more).
# Writes seed $3 (printf %b escapes) as seed-$2 into corpus directory $1.
seed_in() { printf '%b' "$3" > "$1/seed-$2"; }
seed() { seed_in "$out/corpus" "$@"; }
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

# Response seed corpus: good heads (with bodies), bad heads and bad chunking.
rseed() { seed_in "$resp/corpus" "$@"; }
rseed length        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello'
rseed length-list   'HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\nContent-Length: 5\r\n\r\nhello'
rseed chunked       'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\na ; ext\r\n, chunked \r\n5\r\nworld\r\n0\r\nX-Sum: 9\r\nX-B: c\r\n\r\nNEXT'
rseed chunked-lf    'HTTP/1.1 200 OK\nTransfer-Encoding: Chunked\n\n3\nabc\n0\n\n'
rseed continue      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n'
rseed no-content    'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n'
rseed not-modified  'HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\nETag: "x"\r\n\r\n'
rseed head-style    'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n'
rseed until-close   'HTTP/1.0 200 OK\r\nX-A:  two words \t\r\nSet-Cookie: a=1\r\nX-B:\r\n\r\nbody until close'
rseed http10-keep   'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok'
rseed conn-close    'HTTP/1.1 404\r\nConnection: upgrade, close\r\nContent-Length: 0\r\n\r\n'
rseed cl-te         'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
rseed cl-te-204     'HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n'
rseed two-cl        'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'
rseed te-gzip       'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'
rseed te-twice      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n'
rseed obs-fold      'HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nContent-Length: 0\r\n\r\n'
rseed space-colon   'HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello'
rseed bare-cr       'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n'
rseed nul           'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n'
rseed switching     'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n'
rseed status-line   'HTTP/1.2 20 OK\r\nContent-Length: 0\r\n\r\n'
rseed chunk-hex     'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\nx\r\n'
rseed chunk-sign    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0x5\r\nhello\r\n0\r\n\r\n'
rseed chunk-crlf    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n'
rseed chunk-ext     'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 ;a\0b\r\nhello\r\n0\r\n\r\n'
# Past the 4096-byte chunk line and the 16 KiB trailer limits (these also
# raise libFuzzer's length limit for this fuzzer to about 17 KiB).
long_ext="$(printf '%4100s' '' | tr ' ' 'e')"
rseed chunk-line    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;$long_ext\r\nx\r\n0\r\n\r\n"
trailers="$(for _ in $(seq 170); do printf 'X-T: %090d\\r\\n' 0; done)"
rseed big-trailer   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n$trailers\r\n"

cat > "$resp/http.dict" <<'DICT'
"\x0d\x0a"
"\x0d\x0a\x0d\x0a"
"\x0a"
"\x0d"
"HTTP/1.1 "
"HTTP/1.0 "
"200 OK"
"100 Continue"
"101"
"103"
"204"
"304"
"Content-Length: "
"Transfer-Encoding: "
"chunked"
"Connection: "
"close"
"keep-alive"
": "
","
";"
"="
" "
"\x09"
"\x00"
"0\x0d\x0a\x0d\x0a"
"ffffffffffffffff"
DICT

# The JSON parser has no imports: its sources and the harness are one module.
json="$out/json"
mkdir -p "$json/corpus" "$json/artifacts"
echo "building $json/json-fuzzer"
: > "$json/build.log"
compile "$json/build.log" -module-name JSONFuzz Tests/Fuzz/JSONFuzz.swift Sources/Core/JSON*.swift -o "$json/json-fuzzer"

# JSON seed corpus: what browsers and Modgud send, and what must be refused.
jseed() { seed_in "$json/corpus" "$@"; }
jseed otp          '{"email":"ada@example.com","code":"123456","totpCode":null}'
jseed token        '{"access_token":"at","token_type":"Bearer","expires_in":900,"refresh_token":"rt","scope":"openid offline_access"}'
jseed numbers      '[0,-0,1.5e-3,-12.25E+2,9223372036854775807,-9223372036854775808,18446744073709551616,1e308]'
jseed strings      '["\\u00e9\\ud83d\\ude00","\\n\\t\\"\\\\\\/","caf\xc3\xa9"]'
jseed nested       '{"a":{"b":[{"c":[true,false,null]}]}}'
jseed dup-key      '{"a":1,"a":2}'
jseed lone-half    '"\\ud800"'
jseed bad-utf8     '"\xc0\xaf"'
jseed trailing     '{"a":1},'
jseed deep         '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'
jseed overflow     '1e400'
jseed bom          '\xef\xbb\xbf{}'
cat > "$json/http.dict" <<'DICT'
"{"
"}"
"["
"]"
":"
","
"\x22"
"\\u"
"\\ud83d"
"\\ude00"
"true"
"false"
"null"
"-0"
"1e"
"E+"
".5"
DICT

# Runs one fuzzer on its directory's corpus and dictionary, prints its
# summary and exec count; the fuzzer's exit status is left in $ran.
run_fuzzer() {   # binary, directory, seconds, what
    local binary="$1" dir="$2" seconds="$3" what="$4" execs
    echo "fuzzing ${what}for ${seconds}s (log: $dir/fuzz.log)"
    ran=0
    SWIFT_BACKTRACE=enable=no "$binary" "$dir/corpus" -dict="$dir/http.dict" -max_total_time="$seconds" \
        -artifact_prefix="$dir/artifacts/" -print_final_stats=1 > "$dir/fuzz.log" 2>&1 || ran=$?
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done |^==[0-9]+==|^SUMMARY|Fatal error|artifact_prefix' "$dir/fuzz.log" || true
    execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$dir/fuzz.log" | grep -o '[0-9]*$' || echo '?')"
    echo "exec count: $execs in ${seconds}s (status $ran)"
}

run_fuzzer "$out/parser-fuzzer" "$out" "$request_seconds" ""
status=$ran
run_fuzzer "$resp/response-fuzzer" "$resp" "$response_seconds" "the response parser "
if [ "$status" -eq 0 ]; then status="$ran"; fi
run_fuzzer "$json/json-fuzzer" "$json" "$json_seconds" "the JSON parser "

# The first fuzzer's status that is not 0, in the order they ran.
if [ "$status" -eq 0 ]; then status="$ran"; fi
exit "$status"
