#!/usr/bin/env bash
# Exercises scripts/ci/podman.sh with a fake podman (its "API service" a tiny HTTP server on a unix socket answering
# /_ping), a fake docker and fake image stores, so it runs without touching the real Podman. Run: scripts/ci/test-podman.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
REPO=$(cd ../.. && pwd)
export TMP; TMP=$(mktemp -d)
NODE=$(command -v node || echo "$REPO/node_modules/node/bin/node")
export NODE
mkdir -p "$TMP/bin" "$TMP/podman-images"
trap 'kill "$(cat "$TMP/run/service.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$TMP"' EXIT

# podman: --version, system service (FAKE_SERVICE=die: exits at once), image inspect, load
cat >"$TMP/bin/podman" <<'EOF'
#!/usr/bin/env bash
case "$1 $2" in
  "--version ") echo "podman version 0.0-fake" ;;
  "system service")
    [[ "${FAKE_SERVICE:-}" == die ]] && { echo "fake podman: cannot start" >&2; exit 3; }
    exec "$NODE" -e 'require("http").createServer((q, s) => s.end(q.url === "/_ping" ? "OK" : "")).listen(process.argv[1])' "${4#unix://}" ;;
  "--remote --url") # what podman_answers asks when there is no curl: GET /_ping on the socket
    exec "$NODE" -e 'require("http").get({ socketPath: process.argv[1], path: "/_ping" }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on("error", () => process.exit(1))' "${3#unix://}" ;;
  "image inspect") f="$TMP/podman-images/${5//[:\/]/_}"; [[ -f "$f" ]] && cat "$f" || exit 1 ;;
  "load -q") while read -r image id; do printf '%s\n' "$id" >"$TMP/podman-images/${image//[:\/]/_}"; echo "$image" >>"$TMP/loaded"; done ;;
  *) echo "fake podman: unexpected $*" >&2; exit 2 ;;
esac
EOF
# docker: image inspect prints an id per image, save prints "image id" lines (what the fake podman load reads)
cat >"$TMP/bin/docker" <<'EOF'
#!/usr/bin/env bash
case "$1 $2" in
  "image inspect") echo "sha256:id-${5//[:\/]/_}" ;;
  "save "*) shift; for i in "$@"; do echo "$i sha256:id-${i//[:\/]/_}"; done ;;
  *) echo "fake docker: unexpected $*" >&2; exit 2 ;;
esac
EOF
printf '#!/bin/sh\n' >"$TMP/bin/catatonit"
chmod +x "$TMP/bin/"*
export PATH="$TMP/bin:$PATH"
export PODMAN_SOCKET="$TMP/run/podman.sock" PODMAN_LOG="$TMP/podman.log" PODMAN_WAIT=5 PODMAN_UID=0
export PODMAN_IMAGES="node:24-bookworm-slim python:3.12-slim-bookworm"
source ./lib.sh
source ./podman.sh

passed=0
check() { # check <description> <command...>
  local what="$1"
  shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $what"; else echo "FAIL $what"; cat "$TMP/out" 2>/dev/null; exit 1; fi
}
run() { (ensure_podman) >"$TMP/out" 2>&1; } # in a subshell: fail exits it, not this script
has() { grep -q -- "$1" "$TMP/out"; }

# 1. nothing there: the service is started, answers, and both images are loaded from Docker
check "a first run succeeds" run
check "it starts the service" has "podman: starting podman system service --time=0 unix://$PODMAN_SOCKET"
check "the service answers /_ping" podman_answers
check "it loads both images from Docker" has "loading node:24-bookworm-slim python:3.12-slim-bookworm from Docker"
first_pid=$(cat "$TMP/run/service.pid")

# 2. again: the live service is reused, nothing loaded
check "a second run succeeds" run
check "it reuses the live service" has "podman: the API service answers on $PODMAN_SOCKET"
check "it starts nothing" bash -c "! grep -q 'starting podman' '$TMP/out'"
check "the images are there" has "podman: base images present"
check "the same service runs" test "$(cat "$TMP/run/service.pid")" == "$first_pid"

# 3. the service killed, its socket left behind: the stale socket is removed and a new service started
kill -9 "$first_pid"
while kill -0 "$first_pid" 2>/dev/null; do sleep 0.1; done
check "the stale socket is still there" test -S "$PODMAN_SOCKET"
check "a run after the kill succeeds" run
check "it removes the stale socket" has "removing the stale socket"
check "it starts a new service" test "$(cat "$TMP/run/service.pid")" != "$first_pid"
check "the new service answers" podman_answers

# 4. an image Podman holds in another version than Docker's is loaded again (only that one)
echo "sha256:older" >"$TMP/podman-images/python_3.12-slim-bookworm"
: >"$TMP/loaded"
check "a run with an outdated image succeeds" run
check "only the outdated image is loaded" test "$(cat "$TMP/loaded")" == "python:3.12-slim-bookworm"

# 5. a service that cannot start: the run fails with the reason and the log's tail
kill "$(cat "$TMP/run/service.pid")"
sleep 0.3
rm -f "$PODMAN_SOCKET"
export FAKE_SERVICE=die
check "a service that dies makes the run fail" bash -c "! (source ./lib.sh; source ./podman.sh; ensure_podman) >'$TMP/out' 2>&1"
check "the failure names it" has "exited before it answered"
check "the failure shows the log" has "fake podman: cannot start"
unset FAKE_SERVICE

# 6. as a user: no install, no start; the command to run when nothing answers
check "a user with no service fails" bash -c "! (export PODMAN_UID=1000; source ./lib.sh; source ./podman.sh; ensure_podman) >'$TMP/out' 2>&1"
check "it says what to run" has "as root run: sudo bash scripts/ci/podman.sh"

echo "all $passed checks passed"
