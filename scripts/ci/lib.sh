# Functions .ci/run uses; sourced, never run. Each reads its settings from variables so tests can point them at
# fake pid files, logs and commands (scripts/ci/test-lib.sh) without touching the real engine.

CI_START=${CI_START:-$SECONDS}
DOCKERD_PIDFILE=${DOCKERD_PIDFILE:-/var/run/docker.pid}
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/mcpbox-ci-dockerd.log}
DOCKERD_WAIT=${DOCKERD_WAIT:-60}
DOCKERD_CMD=${DOCKERD_CMD:-dockerd}

# A header with the UTC time and the seconds since the run began.
section() { printf '\n==== [%s +%ss] %s ====\n' "$(date -u +%H:%M:%S)" "$((SECONDS - CI_START))" "$*"; }
note() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() { printf '[%s] FAILED: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; exit 1; }

# The Debian packages of "$@" that are not installed.
missing_packages() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || printf '%s\n' "$pkg"
  done
}

# Installs the missing ones; apt-get update runs only when something is missing, so a re-run costs nothing.
ensure_packages() {
  local missing
  missing=$(missing_packages "$@" | tr '\n' ' ')
  if [[ -z "${missing// /}" ]]; then
    note "already installed: $*"
    return 0
  fi
  note "installing: $missing"
  local apt=(apt-get -q -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300)
  # a third-party list that cannot be fetched must not stop the install from Debian's mirror
  "${apt[@]}" update || { note "apt-get update failed: retrying once"; sleep 5; "${apt[@]}" update || note "apt-get update failed again: installing anyway"; }
  # shellcheck disable=SC2086
  # with Recommends, as measured here: docker.io then brings apparmor, cgroupfs-mount and friends
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y $missing </dev/null
}

# True when the engine answers.
engine_ready() { timeout 10 docker info >/dev/null 2>&1; }

# True when the pid is a live dockerd (a reused pid of another program does not count).
is_dockerd_pid() {
  # /proc, not kill -0: another user's dockerd (root's, seen by a user in the docker group) counts too
  [[ "$1" =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/$1/comm" 2>/dev/null)" == dockerd ]] &&
    # a killed dockerd not yet reaped is a zombie: gone for our purposes
    [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]]
}

# Removes a pid file left by a dockerd that is gone; dockerd refuses to start while it exists. Prints a live pid.
clear_stale_pidfile() {
  local file="$1" pid
  [[ -e "$file" ]] || return 0
  pid=$(cat "$file" 2>/dev/null || true)
  if is_dockerd_pid "$pid"; then
    printf '%s\n' "$pid"
    return 0
  fi
  note "removing stale $file (pid '${pid}' is not a running dockerd)" >&2
  rm -f "$file"
}

# Waits up to $2 seconds for the engine; gives up early when the dockerd pid $1 (if any) dies.
wait_for_engine() {
  local pid="$1" limit="$2" waited=0
  until engine_ready; do
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
      note "dockerd (pid $pid) exited" >&2
      return 1
    fi
    if ((waited >= limit)); then
      note "no answer from the engine after ${limit} s" >&2
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
    ((waited % 10 == 0)) && note "still waiting for the engine (${waited} s of ${limit})" >&2
  done
  note "engine ready after ${waited} s"
}

# Starts dockerd in the background unless an engine already answers; fails with the log's tail otherwise.
ensure_dockerd() {
  if engine_ready; then
    note "a Docker engine is already running"
    return 0
  fi
  local pid attempt
  # a dockerd killed a moment ago may still look alive on the first try: then start a fresh one once
  for attempt in 1 2; do
    pid=$(clear_stale_pidfile "$DOCKERD_PIDFILE")
    if [[ -n "$pid" ]]; then
      note "dockerd (pid $pid) is running but not answering yet: waiting for it"
    else
      mkdir -p "$(dirname "$DOCKERD_LOG")"
      note "starting $DOCKERD_CMD (log: $DOCKERD_LOG)"
      # its own session, so it outlives this script and no signal to our process group reaches it; started from /
      # so that files the engine writes to its working folder (an `oom` file) do not land in the checkout
      (cd / && exec setsid $DOCKERD_CMD) >>"$DOCKERD_LOG" 2>&1 </dev/null &
      pid=$!
    fi
    wait_for_engine "$pid" "$DOCKERD_WAIT" && return 0
    if ((attempt == 1)); then
      note "trying once more with a fresh dockerd"
      rm -f "$DOCKERD_PIDFILE"
      sleep 1
    fi
  done
  printf '%s\n' "---- last lines of $DOCKERD_LOG ----" >&2
  tail -n 40 "$DOCKERD_LOG" >&2 2>/dev/null || true
  fail "the Docker engine did not start (waited up to ${DOCKERD_WAIT} s a try)"
}

# npm ci, unless node_modules was installed from this very lock file (the stamp is written only after success).
ensure_node_modules() {
  local stamp=node_modules/.mcpbox-ci-lock.sha256 want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x node_modules/node/bin/node ]]; then
    note "node_modules matches package-lock.json: skipping npm ci"
    return 0
  fi
  npm ci --no-audit --no-fund
  printf '%s\n' "$want" >"$stamp"
}

# ---- gVisor: Debian's runsc registered as a Docker runtime (issue 16) ----
DOCKER_DAEMON_JSON=${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}
RUNSC_PATH=${RUNSC_PATH:-/usr/bin/runsc}
RUNSC_WAIT=${RUNSC_WAIT:-30}
# what works on this kind of machine (ENVIRONMENT.md): no KVM, and runsc's own network stack off (mcpbox uses none)
RUNSC_ARGS=${RUNSC_ARGS:-"--platform=ptrace --network=none"}

# True when the engine offers the runtime named $1 (`docker info` lists it).
engine_has_runtime() {
  timeout 10 docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q "\"$1\":"
}

# Adds (or replaces) the runsc entry of daemon.json's "runtimes", keeping every other key and runtime; a file that
# is not valid JSON is left alone and reported. Prints "changed" when it wrote the file.
merge_runsc_daemon_json() {
  local file="$1"
  mkdir -p "$(dirname "$file")"
  RUNSC_PATH="$RUNSC_PATH" RUNSC_ARGS="$RUNSC_ARGS" node -e '
    const fs = require("fs"); const file = process.argv[1];
    let text = ""; try { text = fs.readFileSync(file, "utf8"); } catch (e) { if (e.code !== "ENOENT") throw e; }
    let conf = {};
    if (text.trim() !== "") {
      try { conf = JSON.parse(text); } catch (e) { console.error(`${file} is not valid JSON (${e.message}): fix it, then run again`); process.exit(2); }
      if (conf === null || typeof conf !== "object" || Array.isArray(conf)) { console.error(`${file} does not hold a JSON object: fix it, then run again`); process.exit(2); }
    }
    const want = { path: process.env.RUNSC_PATH, runtimeArgs: process.env.RUNSC_ARGS.split(/\s+/).filter(Boolean) };
    const runtimes = conf.runtimes && typeof conf.runtimes === "object" ? conf.runtimes : {};
    if (JSON.stringify(runtimes.runsc) === JSON.stringify(want)) process.exit(0);
    conf.runtimes = { ...runtimes, runsc: want };
    fs.writeFileSync(file + ".mcpbox-tmp", JSON.stringify(conf, null, 2) + "\n");
    fs.renameSync(file + ".mcpbox-tmp", file);
    console.log("changed");
  ' "$file"
}

# The pid of the dockerd to reload: the pid file's when it names a live dockerd, else the oldest dockerd running.
dockerd_pid() {
  local pid
  pid=$(cat "$DOCKERD_PIDFILE" 2>/dev/null || true)
  if is_dockerd_pid "$pid"; then printf '%s\n' "$pid"; return 0; fi
  pgrep -xo dockerd 2>/dev/null
}

# Installs runsc and registers it with the running dockerd (daemon.json, then SIGHUP: a reload that keeps running
# containers), then waits for `docker info` to list it. Quick, and changes nothing, when the engine offers it already.
ensure_gvisor() {
  if engine_has_runtime runsc; then
    note "gVisor: the engine offers runsc already"
    return 0
  fi
  [[ -x "$RUNSC_PATH" ]] || ensure_packages runsc
  [[ -x "$RUNSC_PATH" ]] || fail "gVisor: $RUNSC_PATH is missing after installing runsc"
  local changed pid waited=0
  changed=$(merge_runsc_daemon_json "$DOCKER_DAEMON_JSON") || fail "gVisor: could not register runsc in $DOCKER_DAEMON_JSON"
  if [[ -n "$changed" ]]; then note "gVisor: registered runsc in $DOCKER_DAEMON_JSON ($RUNSC_ARGS)"
  else note "gVisor: runsc is in $DOCKER_DAEMON_JSON already: reloading dockerd"; fi
  pid=$(dockerd_pid) || fail "gVisor: no running dockerd to reload (start it, then run again)"
  kill -HUP "$pid" || fail "gVisor: could not signal dockerd (pid $pid)"
  note "gVisor: sent SIGHUP to dockerd (pid $pid) to reload its configuration"
  until engine_has_runtime runsc; do
    if ((waited >= RUNSC_WAIT)); then
      printf '%s\n' "---- last lines of $DOCKERD_LOG ----" >&2
      tail -n 20 "$DOCKERD_LOG" >&2 2>/dev/null || true
      fail "gVisor: the engine does not list runsc ${RUNSC_WAIT} s after the reload (check $DOCKER_DAEMON_JSON, or restart dockerd)"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  note "gVisor: the engine offers runsc (after ${waited} s)"
}

# What a user who is not root runs to get gVisor.
gvisor_advice() {
  printf '%s' "install and register gVisor: sudo apt-get install -y runsc, then add \"runtimes\": {\"runsc\": {\"path\": \"$RUNSC_PATH\", \"runtimeArgs\": [\"${RUNSC_ARGS// /\", \"}\"]}} to $DOCKER_DAEMON_JSON and reload dockerd (sudo kill -HUP \$(pidof dockerd), or sudo systemctl restart docker)"
}

# ---- machine setup: what `npm run main` and `npm test` need (scripts/setup.sh, .ci/run) ----
SETUP_UID=${SETUP_UID:-$EUID}
SETUP_BASE_IMAGES=${SETUP_BASE_IMAGES:-"node:24-bookworm-slim python:3.12-slim-bookworm"}
SETUP_CA_BUNDLE=${SETUP_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
SETUP_BASE_IMAGES_CMD=${SETUP_BASE_IMAGES_CMD:-"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/base-images.sh"}

# The commands a job needs besides the engine: tests drive a terminal UI with tmux and clone the repository.
# docker-registry (Debian's, distribution 2.8): the image-server tests push to and pull from one on 127.0.0.1:5000,
# which they start themselves with a loopback-only config.
setup_commands() { [[ "$1" == test ]] && printf '%s\n' tmux git docker-registry; return 0; }

# Base images the engine does not have.
missing_base_images() {
  local image
  for image in $SETUP_BASE_IMAGES; do docker image inspect "$image" >/dev/null 2>&1 || printf '%s\n' "$image"; done
}

# Why the engine does not answer, as the command that fixes it (for a user who is not root).
engine_advice() {
  if ! command -v dockerd >/dev/null && ! command -v docker >/dev/null; then
    echo "install and start the Docker engine: sudo apt-get install -y docker.io && sudo systemctl start docker (no systemd: sudo dockerd &)"
  elif [[ -S /var/run/docker.sock && ! -w /var/run/docker.sock && -z "${DOCKER_HOST:-}" ]]; then
    echo "let $(id -un) use the engine: sudo usermod -aG docker $(id -un), then log in again (or run as root)"
  elif ! command -v dockerd >/dev/null && [[ -z "${DOCKER_HOST:-}" ]]; then
    echo "install and start the Docker engine: sudo apt-get install -y docker.io && sudo systemctl start docker (no systemd: sudo dockerd &)"
  else
    echo "start the Docker engine: sudo systemctl start docker (no systemd: sudo dockerd &), then check that \`docker info\` answers"
  fi
}

# setup_machine main|test: as root installs and starts what is missing, one line per step; as another user checks
# everything first (quick) and fails before any slow step, listing each command to run.
setup_machine() {
  local job="$1" todo=() missing cmd
  # 1. the engine
  if engine_ready; then
    note "setup: Docker engine answers ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))"
  elif ((SETUP_UID == 0)); then
    note "setup: no Docker engine answers: installing and starting one"
    # an engine installed another way (docker-ce, a static build) is kept: docker.io would conflict with it
    command -v dockerd >/dev/null || ensure_packages docker.io
    ensure_dockerd
  else
    todo+=("$(engine_advice)")
  fi
  # 2. the commands the job runs, and the CA bundle the example config hands to builds
  missing=()
  for cmd in $(setup_commands "$job"); do command -v "$cmd" >/dev/null || missing+=("$cmd"); done
  [[ -s "$SETUP_CA_BUNDLE" ]] || missing+=(ca-certificates)
  if ((${#missing[@]} == 0)); then
    note "setup: present: $(setup_commands "$job" | tr '\n' ' ')the CA bundle $SETUP_CA_BUNDLE"
  elif ((SETUP_UID == 0)); then
    note "setup: installing ${missing[*]}"
    ensure_packages "${missing[@]}"
  else
    todo+=("install what the $job job runs: sudo apt-get install -y ${missing[*]}")
  fi
  # 3. gVisor for the test job (test/gvisor.test.ts and the bench run servers under runsc)
  if [[ "$job" == test ]]; then
    if engine_has_runtime runsc; then
      note "setup: gVisor: the engine offers runsc"
    elif ((SETUP_UID == 0)) && engine_ready; then
      ensure_gvisor
    elif ((SETUP_UID != 0)); then
      todo+=("$(gvisor_advice)")
    fi
  fi
  # 4. the templates' base images (no registry is needed: they are made from Debian's mirror, about a minute)
  if ((${#todo[@]} == 0)) || engine_ready; then
    missing=($(missing_base_images))
    if ((${#missing[@]} == 0)); then
      note "setup: base images present: $SETUP_BASE_IMAGES"
    elif ((SETUP_UID == 0)); then
      note "setup: making the base images ${missing[*]} locally (debootstrap, about a minute)"
      ensure_packages debootstrap debian-archive-keyring binutils
      "$SETUP_BASE_IMAGES_CMD" || todo+=("make the base images ${missing[*]}: $SETUP_BASE_IMAGES_CMD failed (its output is above)")
    else
      todo+=("make the base images ${missing[*]}: sudo apt-get install -y debootstrap && sudo $SETUP_BASE_IMAGES_CMD (or docker pull them where a registry is reachable)")
    fi
  fi
  ((${#todo[@]} == 0)) && return 0
  {
    printf '[%s] setup: as %s, nothing slow was started; first:\n' "$(date -u +%H:%M:%S)" "$(id -un 2>/dev/null || echo "uid $SETUP_UID")"
    printf '  - %s\n' "${todo[@]}"
    printf '  then run the command again (as root, it does all of this itself)\n'
  } >&2
  return 1
}
