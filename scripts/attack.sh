#!/usr/bin/env bash
# The attacks of issue 24 ("hostile ground") against a fresh `docdeck serve` on a free
# loopback port, as a local user and a careless operator would make them: wrong, malformed,
# revoked and other projects' keys; keys in the process list; slow, silent and too many
# connections; traversal on /changes; huge and deep bodies; NUL and shell metacharacters
# in prompts; who may read the database. Each check prints `ok` or `FAIL`; any FAIL makes
# the script exit 1 (2: the service could not be started).
#
# Usage: scripts/attack.sh        (needs bash, curl, stat; no network beyond loopback)
#   DOCDECK_BIN    the binary to attack [default: target/debug/docdeck]; build it first
#   ATTACK_KEEP=1  keep the throwaway folder (database, service log) for a look afterwards
#
# Bounded: every request has a time limit (curl --max-time, timeout), the service's own
# limits are set short (--header-timeout 1s, --idle-timeout 2s, --body-timeout 3s,
# --max-connections 8), and
# the whole run takes about 15 seconds. Not run by .ci/run; the cargo tests
# tests/service_hostile.rs, tests/cli_keys.rs and tests/agent_hostile.rs keep each finding.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${DOCDECK_BIN:-$ROOT/target/debug/docdeck}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/docdeck-attack.XXXXXX")
SERVE_PID=""
CHECKS=0
FAILURES=0
KEY=mint_attack_$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
OTHER_KEY=mint_other_$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')

cleanup() {
    [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
    if [ "${ATTACK_KEEP:-}" = 1 ]; then
        echo "kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

check() { # name, then a command that succeeds when the attack was held off
    local name=$1
    shift
    CHECKS=$((CHECKS + 1))
    if "$@"; then
        printf 'ok    %s\n' "$name"
    else
        printf 'FAIL  %s\n' "$name"
        FAILURES=$((FAILURES + 1))
    fi
}

[ -x "$BIN" ] || { echo "no binary at $BIN: run cargo build first, or set DOCDECK_BIN" >&2; exit 2; }
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/config XDG_DATA_HOME=$WORK/home/data
mkdir -p "$HOME"
DB=$WORK/service.sqlite
keys() { timeout 20 "$BIN" serve keys "$@" --db "$DB"; }

# A key of another project, stored before the start.
DOCDECK_SERVE_API_KEY=$OTHER_KEY keys add --project other >/dev/null 2>&1

DOCDECK_SERVE_API_KEY=$KEY "$BIN" serve --addr 127.0.0.1:0 --db "$DB" --seed none \
    --agent-delay-ms 50 --header-timeout 1s --idle-timeout 2s --body-timeout 3s --max-connections 8 \
    >"$WORK/stdout" 2>"$WORK/service.log" &
SERVE_PID=$!
BASE=""
for _ in $(seq 1 300); do
    BASE=$(sed -n 's/^listening on //p' "$WORK/stdout" 2>/dev/null)
    [ -n "$BASE" ] && break
    kill -0 "$SERVE_PID" 2>/dev/null || { cat "$WORK/service.log" >&2; exit 2; }
    sleep 0.1
done
[ -n "$BASE" ] || { echo "docdeck serve did not start within 30 s" >&2; exit 2; }
PORT=${BASE##*:}
echo "attacking $BASE ($("$BIN" --version))"

JOBS=$BASE/v2/agent/demo/job
status() { # curl args...: the status code only
    curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"
}
create() { # key, JSON body
    status -X POST "$JOBS" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' --data-binary "$2"
}
is() { [ "$1" = "$2" ] || { echo "      expected $2, got $1" >&2; return 1; }; }

# Keys.
check "no key: 401" is "$(status "$JOBS/job_x")" 401
check "malformed header: 401" is "$(status -H 'Authorization: Basic abc' "$JOBS/job_x")" 401
check "unknown key: 401" is "$(create mint_wrong_0123456789abcdef '{"prompt":"x"}')" 401
check "another project's key: 403" is "$(create "$OTHER_KEY" '{"prompt":"x"}')" 403
check "the service's key: 201" is "$(create "$KEY" '{"prompt":"hello"}')" 201
not_in_ps() { ! ps -eo args= | grep -F -- "$KEY" | grep -v grep >/dev/null; }
check "the key given by the environment is not in ps" not_in_ps
not_in_log() { ! grep -F -- "$KEY" "$WORK/service.log" >/dev/null; }
revoked_at_once() {
    local added
    added=$(keys add --project demo 2>/dev/null) || return 1
    is "$(create "$added" '{"prompt":"before"}')" 201 || return 1
    local id
    id=$(keys list | awk -v p="${added:0:8}" 'index($2, p) == 1 { print $1 }')
    keys revoke "$id" >/dev/null || return 1
    is "$(create "$added" '{"prompt":"after"}')" 401
}
check "a key revoked while serving is refused at its next request" revoked_at_once
slowed() {
    local guess='Authorization: Bearer mint_guess_0123456789ab' i out valid
    for i in $(seq 1 10); do status -H "$guess" "$JOBS/job_x" >/dev/null; done
    out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -H "$guess" "$JOBS/job_x")
    is "${out%% *}" 401 || return 1
    awk -v t="${out#* }" 'BEGIN { exit !(t >= 0.9) }' || { echo "      answered in ${out#* } s" >&2; return 1; }
    valid=$(curl -s -o /dev/null -w '%{time_total}' --max-time 10 -H "Authorization: Bearer $KEY" "$JOBS/job_x")
    awk -v t="$valid" 'BEGIN { exit !(t < 0.9) }' || { echo "      a valid key waited $valid s" >&2; return 1; }
}
check "wrong keys past ten a minute are held back, a valid key is not" slowed

# Bodies and prompts.
check "a prompt with NUL: 400" is "$(create "$KEY" '{"prompt":"a\u0000b"}')" 400
check "shell metacharacters are only text: 201" is "$(create "$KEY" '{"prompt":"$(touch /tmp/pwned); `id` | rm -rf ~ && echo"}')" 201
head -c 2000000 /dev/zero | tr '\0' 'a' | sed 's/^/{"prompt":"/; s/$/"}/' >"$WORK/huge.json"
check "a 2 MB body: 413" is "$(create "$KEY" @"$WORK/huge.json")" 413
{ printf '%*s' 50000 '' | tr ' ' '['; printf '%*s' 50000 '' | tr ' ' ']'; } >"$WORK/deep.json"
check "50,000 nested arrays: 400" is "$(create "$KEY" @"$WORK/deep.json")" 400

# Traversal on /changes (the simulated agent has no change page: 404 at best).
for path in '/changes/demo/..%2F..%2F..%2Fetc%2Fpasswd' '/changes/../../etc/passwd' \
    '/changes/demo/job_x%00' '/changes/%2E%2E/%2E%2E'; do
    code=$(curl -s -o "$WORK/body" -w '%{http_code}' --max-time 10 --path-as-is "$BASE$path")
    check "traversal $path: no file" eval '[ "$code" != 200 ] && ! grep -q "root:" "$WORK/body"'
done
nosniff() { curl -s -D - -o /dev/null --max-time 10 "$BASE/changes/demo/job_x" | grep -qi '^x-content-type-options: nosniff'; }
check "answers carry X-Content-Type-Options: nosniff" nosniff

# Slow, silent and too many connections.
closed_within() { # seconds, what to send first: the service must close the connection
    local limit=$1 first=$2
    timeout "$limit" bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf '%s' '$first' >&3; cat <&3 >/dev/null"
}
check "half a request line is closed at the header timeout" closed_within 5 'GET /openapi.json HT'
trickled() { # a body sent a byte every half second: never idle, never done; 408 at 3 s
    timeout 8 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT
        printf 'POST /v2/agent/demo/job HTTP/1.1\r\nhost: x\r\nauthorization: Bearer $KEY\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n' >&3
        (for i in \$(seq 1 14); do printf ' ' >&3 2>/dev/null || exit; sleep 0.5; done) &
        head -c 12 <&3" | grep -q 'HTTP/1.1 408'
}
check "a body trickled in, never idle, is answered 408 at the body timeout" trickled
check "a silent connection is closed at the header timeout" closed_within 5 ''
cap() {
    local fds=() i
    for i in $(seq 1 8); do
        exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || return 1
        fds+=("$fd")
    done
    local answer
    answer=$(timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; head -c 12 <&3")
    for fd in "${fds[@]}"; do exec {fd}>&-; done
    is "$answer" "HTTP/1.1 503"
}
check "a ninth connection past --max-connections 8 is answered 503" cap
answers_again() {
    local i
    for i in $(seq 1 50); do
        [ "$(status "$BASE/openapi.json")" = 200 ] && return 0
        sleep 0.1
    done
    return 1
}
check "the service answers again once they are closed" answers_again

# Files.
private() { [ "$(stat -c %a "$1")" = 600 ] || { echo "      $1 is $(stat -c %a "$1")" >&2; return 1; }; }
check "the database is 0600" private "$DB"
check "no key in the service's log" not_in_log

echo "$CHECKS checks, $FAILURES failed"
[ "$FAILURES" = 0 ]
