#!/usr/bin/env bash
# Exercises the dockerd start logic of lib.sh with a fake dockerd, a fake pid file and a fake "engine ready" probe,
# so it can run on a machine whose real engine must not be disturbed. Run: scripts/ci/test-lib.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
export TMP; TMP=$(mktemp -d)
fake_dockerd=
trap '[[ -n "$fake_dockerd" ]] && kill "$fake_dockerd" 2>/dev/null; rm -rf "$TMP"' EXIT
export DOCKERD_PIDFILE="$TMP/docker.pid" DOCKERD_LOG="$TMP/logs/dockerd.log" DOCKERD_WAIT=5
source ./lib.sh

# The fake engine is "ready" once this file exists.
engine_ready() { [[ -e "$TMP/ready" ]]; }

fake() { # fake <name> <script body>: a fake dockerd whose /proc comm is its name
  printf '#!/usr/bin/env bash\necho $$ >"%s/%s.pid"\n%s\n' "$TMP" "$1" "$2" >"$TMP/$1"
  chmod +x "$TMP/$1"
  export DOCKERD_CMD="$TMP/$1"
}

passed=0
check() { # check <description> <command...>
  local what="$1"
  shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $what"; else echo "FAIL $what"; exit 1; fi
}
stop() { kill "$(cat "$TMP/$1.pid")" 2>/dev/null || true; } # our fake, by its pid
reset() { rm -f "$TMP/ready" "$DOCKERD_PIDFILE"; rm -rf "$TMP/logs"; }

# 1. an engine that already answers: nothing is started
reset; touch "$TMP/ready"; fake never 'echo started >"'"$TMP"'/started"'
check "running engine: no start" bash -c "$(declare -f); ensure_dockerd >/dev/null; [[ ! -e $TMP/started ]]"

# 2. a stale pid file (dead pid) is removed, dockerd starts and becomes ready
reset; echo 999999 >"$DOCKERD_PIDFILE"; fake slow 'echo starting; sleep 2; touch "'"$TMP"'/ready"; exec sleep 30'
out=$( (ensure_dockerd) 2>&1)
check "stale pid file removed" test ! -e "$DOCKERD_PIDFILE"
check "dockerd started and waited for" grep -q "engine ready after" <<<"$out"
check "log written" grep -q starting "$DOCKERD_LOG"
stop slow

# 3. a pid file naming a live process that is not dockerd is stale too
reset; sleep 60 & other=$!; echo "$other" >"$DOCKERD_PIDFILE"
check "live non-dockerd pid is stale" bash -c "$(declare -f); clear_stale_pidfile $DOCKERD_PIDFILE 2>/dev/null; [[ ! -e $DOCKERD_PIDFILE ]]"
kill "$other"

# 4. a pid file naming a live dockerd is kept (reads the real one if present, changes nothing)
if real=$(pgrep -xo dockerd); then
  echo "$real" >"$TMP/live.pid"
  check "live dockerd pid kept" bash -c "$(declare -f); [[ \$(clear_stale_pidfile $TMP/live.pid) == $real && -e $TMP/live.pid ]]"
fi

# 5. a dockerd that exits at once: fails early with the log's tail
reset; fake crash 'echo "failed to start daemon: boom"; exit 1'
start=$SECONDS
if out=$( (ensure_dockerd) 2>&1); then check "crash detected" false; fi
check "crash reported with log tail" grep -q "boom" <<<"$out"
check "crash fails before the time limit" test $((SECONDS - start)) -lt "$DOCKERD_WAIT"

# 6. a dockerd that never answers: fails after DOCKERD_WAIT seconds, loudly
reset; fake mute 'echo "still initialising"; exec sleep 30'
export DOCKERD_WAIT=2
if out=$( (ensure_dockerd) 2>&1); then check "timeout detected" false; fi
check "timeout reported" grep -q "did not start (waited up to 2 s a try)" <<<"$out"
check "timeout shows log tail" grep -q "still initialising" <<<"$out"
stop mute

# 7. missing_packages lists only what dpkg does not have
check "missing_packages" bash -c "$(declare -f); [[ \$(missing_packages bash no-such-package-xyz) == no-such-package-xyz ]]"

# 8. ensure_packages: apt-get update only when something is missing; a failing update does not stop the install
mkdir -p "$TMP/bin"
printf '#!/usr/bin/env bash\n[[ "$*" == *"-W"*" present"* ]] && echo "install ok installed"\nexit 0\n' >"$TMP/bin/dpkg-query"
printf '#!/usr/bin/env bash\necho "$*" >>"%s/apt.calls"\n[[ "$*" == *update* ]] && exit 100\nexit 0\n' "$TMP" >"$TMP/bin/apt-get"
chmod +x "$TMP/bin/dpkg-query" "$TMP/bin/apt-get"
sleep() { :; }
PATH="$TMP/bin:$PATH" ensure_packages present >/dev/null
check "nothing missing: no apt-get" test ! -e "$TMP/apt.calls"
PATH="$TMP/bin:$PATH" ensure_packages present absent1 absent2 >/dev/null
check "update tried twice, then install of the missing ones" \
  test "$(grep -c ' update' "$TMP/apt.calls")" = 2 -a "$(grep -c 'install -y absent1 absent2' "$TMP/apt.calls")" = 1
unset -f sleep

# 9-12. setup_machine: as root it installs and starts; as another user it stops before anything slow, saying what to run
# the fake engine lists the runtimes in $TMP/runtimes.json (runc alone when it is missing)
printf '#!/usr/bin/env bash\nif [[ "$1" == info ]]; then cat "%s/runtimes.json" 2>/dev/null || echo "{\\"runc\\":{}}"; exit 0; fi\n[[ "$1 $2" == "image inspect" ]] && [[ -e "%s/images" ]]\n' "$TMP" "$TMP" >"$TMP/bin/docker"
printf '#!/usr/bin/env bash\necho ran >>"%s/base-images.calls"\ntouch "%s/images"\n' "$TMP" "$TMP" >"$TMP/base-images"
chmod +x "$TMP/bin/docker" "$TMP/base-images"
setup_commands() { printf '%s\n' bash no-such-command-xyz; }
sleep() { :; } # the fake apt-get update fails: no waiting before its retry
export SETUP_BASE_IMAGES="node:24 python:3" SETUP_BASE_IMAGES_CMD="$TMP/base-images" SETUP_CA_BUNDLE="$TMP/no-ca.crt"
reset; rm -f "$TMP/apt.calls" "$TMP/images"; fake never 'echo started >"'"$TMP"'/started"'
if out=$(PATH="$TMP/bin:$PATH" SETUP_UID=1000 setup_machine test 2>&1); then check "non-root with things missing fails" false; fi
check "non-root: says to start the engine" grep -q "Docker engine" <<<"$out"
check "non-root: names the packages to install" grep -q "sudo apt-get install -y no-such-command-xyz ca-certificates" <<<"$out"
check "non-root: says how to install and register gVisor" grep -q "install and register gVisor: sudo apt-get install -y runsc" <<<"$out"
check "non-root: nothing installed or started" test ! -e "$TMP/apt.calls" -a ! -e "$TMP/started" -a ! -e "$TMP/base-images.calls"
touch "$TMP/ready"; echo cert >"$TMP/ca.crt"; export SETUP_CA_BUNDLE="$TMP/ca.crt"; setup_commands() { echo bash; }
if out=$(PATH="$TMP/bin:$PATH" SETUP_UID=1000 setup_machine test 2>&1); then check "non-root without base images fails" false; fi
check "non-root: names the base images and how to make them" grep -q "make the base images node:24 python:3: sudo apt-get install -y debootstrap && sudo $TMP/base-images" <<<"$out"
check "non-root: base images not built" test ! -e "$TMP/base-images.calls"
echo '{"runc":{},"runsc":{}}' >"$TMP/runtimes.json" # gVisor has its own checks below (13-17)
out=$(PATH="$TMP/bin:$PATH" SETUP_UID=0 setup_machine test 2>&1)
check "root: makes the base images, installing debootstrap first" \
  test "$(cat "$TMP/base-images.calls")" = ran -a "$(grep -c 'install -y debootstrap debian-archive-keyring binutils' "$TMP/apt.calls")" = 1
rm -f "$TMP/apt.calls" "$TMP/base-images.calls"
out=$(PATH="$TMP/bin:$PATH" SETUP_UID=0 setup_machine test 2>&1)
check "root, all there: quick, nothing installed" test ! -e "$TMP/apt.calls" -a ! -e "$TMP/base-images.calls"
check "root, all there: a line per step" test "$(grep -c 'setup: ' <<<"$out")" = 4
check "root, all there: gVisor present" grep -q "setup: gVisor: the engine offers runsc" <<<"$out"
unset -f sleep setup_commands

# 13-17. ensure_gvisor: installs runsc, merges it into daemon.json keeping the rest, SIGHUPs the dockerd of the pid
# file (a fake named dockerd that lists runsc once it got the signal), waits for the engine to list it; idempotent
export DOCKER_DAEMON_JSON="$TMP/etc/docker/daemon.json" RUNSC_PATH="$TMP/bin/runsc" RUNSC_WAIT=2
printf '#!/usr/bin/env bash\necho "$*" >>"%s/apt.calls"\n[[ "$*" == *"install -y runsc"* ]] && printf "#!/bin/sh\\n" >"%s" && chmod +x "%s"\nexit 0\n' "$TMP" "$RUNSC_PATH" "$RUNSC_PATH" >"$TMP/bin/apt-get"
mkdir -p "$TMP/fake" "$(dirname "$DOCKER_DAEMON_JSON")"
# "#!/bin/bash", not env: the kernel then names the process after the script (comm "dockerd")
printf '#!/bin/bash\necho $$ >"%s"\ntrap '"'"'echo hup >>"%s/hup.calls"; [[ -e "%s/deaf" ]] || echo "{\\"runc\\":{},\\"runsc\\":{}}" >"%s/runtimes.json"'"'"' HUP\nwhile :; do sleep 0.2; done\n' \
  "$DOCKERD_PIDFILE" "$TMP" "$TMP" "$TMP" >"$TMP/fake/dockerd"
chmod +x "$TMP/fake/dockerd"
sleep() { command sleep 0.1; }
pgrep() { return 1; } # never the real dockerd: only the fake of the pid file may be signalled
start_fake_dockerd() { rm -f "$DOCKERD_PIDFILE"; "$TMP/fake/dockerd" >/dev/null 2>&1 </dev/null & fake_dockerd=$!; for _ in 1 2 3 4 5 6 7 8 9 10; do [[ -s "$DOCKERD_PIDFILE" ]] && break; command sleep 0.1; done; }
rm -f "$TMP/apt.calls" "$TMP/runtimes.json" "$TMP/hup.calls"
echo '{"log-level": "warn", "runtimes": {"other": {"path": "/opt/other"}}}' >"$DOCKER_DAEMON_JSON"
start_fake_dockerd
out=$(PATH="$TMP/bin:$PATH" ensure_gvisor 2>&1) || { echo "$out"; check "gvisor: ensure_gvisor succeeds" false; }
check "gvisor: runsc installed from Debian" grep -q "install -y runsc" "$TMP/apt.calls"
check "gvisor: daemon.json keeps its keys and other runtimes, gains runsc with the measured flags" node -e '
  const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const ok = c["log-level"] === "warn" && c.runtimes.other.path === "/opt/other" && c.runtimes.runsc.path === process.argv[2] &&
    JSON.stringify(c.runtimes.runsc.runtimeArgs) === JSON.stringify(["--platform=ptrace", "--network=none"]);
  process.exit(ok ? 0 : 1);' "$DOCKER_DAEMON_JSON" "$RUNSC_PATH"
check "gvisor: dockerd reloaded with SIGHUP, then listed runsc" test "$(cat "$TMP/hup.calls" 2>/dev/null)" = hup -a -n "$(grep "the engine offers runsc" <<<"$out")"
rm -f "$TMP/apt.calls"; cp "$DOCKER_DAEMON_JSON" "$TMP/daemon.before"
out=$(PATH="$TMP/bin:$PATH" ensure_gvisor 2>&1)
check "gvisor, again: nothing installed, written or signalled" \
  test ! -e "$TMP/apt.calls" -a "$(cat "$TMP/hup.calls")" = hup -a -n "$(grep "offers runsc already" <<<"$out")"
check "gvisor, again: daemon.json unchanged" cmp -s "$DOCKER_DAEMON_JSON" "$TMP/daemon.before"
rm -f "$TMP/runtimes.json" # an engine restarted without the reload: registered, not listed
out=$(PATH="$TMP/bin:$PATH" ensure_gvisor 2>&1)
check "gvisor: registered but not listed: reload only" \
  test "$(grep -c hup "$TMP/hup.calls")" = 2 -a -n "$(grep "in .* already: reloading" <<<"$out")" -a ! -e "$TMP/apt.calls"
rm -f "$TMP/runtimes.json"; touch "$TMP/deaf"
if out=$(PATH="$TMP/bin:$PATH" ensure_gvisor 2>&1); then check "gvisor: an engine that never lists runsc fails" false; fi
check "gvisor: never listed: fails loudly after RUNSC_WAIT" grep -q "does not list runsc 2 s after the reload" <<<"$out"
echo '{"runtimes": ' >"$DOCKER_DAEMON_JSON"
if out=$(PATH="$TMP/bin:$PATH" ensure_gvisor 2>&1); then check "gvisor: a broken daemon.json fails" false; fi
check "gvisor: broken daemon.json left alone and named" test "$(cat "$DOCKER_DAEMON_JSON")" = '{"runtimes": ' -a -n "$(grep "is not valid JSON" <<<"$out")"
kill "$fake_dockerd" 2>/dev/null || true
fake_dockerd=
unset -f sleep pgrep

echo "all $passed checks passed"
