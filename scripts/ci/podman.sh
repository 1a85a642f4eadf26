# Podman for the "podman" project of the end-to-end tests (issue 16): sourced after scripts/ci/lib.sh (it uses its
# note, fail and ensure_packages), or run as `bash scripts/ci/podman.sh`. ensure_podman installs Debian's podman and
# catatonit (Podman's --init), starts Podman's Docker-compatible API service on a socket of its own (a live one is
# reused, a stale socket removed) and loads the local base images from Docker into Podman's storage. Each setting is
# a variable, so it can be pointed elsewhere. Quick when everything is there: one ping and one check per image.

PODMAN_SOCKET=${PODMAN_SOCKET:-/run/mcpbox-podman/podman.sock}
PODMAN_PIDFILE=${PODMAN_PIDFILE:-$(dirname "$PODMAN_SOCKET")/service.pid}
PODMAN_LOG=${PODMAN_LOG:-/var/log/mcpbox-ci-podman.log}
PODMAN_WAIT=${PODMAN_WAIT:-30}
PODMAN_IMAGES=${PODMAN_IMAGES:-${SETUP_BASE_IMAGES:-"node:24-bookworm-slim python:3.12-slim-bookworm"}}
PODMAN_UID=${PODMAN_UID:-$EUID}

# True when the service answers GET /_ping on its socket (curl if there, else the podman remote client).
podman_answers() {
  [[ -S "$PODMAN_SOCKET" ]] || return 1
  if command -v curl >/dev/null; then
    [[ "$(curl -s -m 5 --unix-socket "$PODMAN_SOCKET" http://podman/_ping 2>/dev/null)" == OK ]]
  else
    timeout 10 podman --remote --url "unix://$PODMAN_SOCKET" version >/dev/null 2>&1
  fi
}

# True when the pid is a live `podman system service` (a reused pid of another program does not count).
is_podman_service_pid() {
  [[ "$1" =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/$1/comm" 2>/dev/null)" == podman ]] &&
    [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]] &&
    tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q "system service"
}

# Starts the service unless one answers on the socket; fails with the log's tail when it does not come up.
ensure_podman_service() {
  if podman_answers; then
    note "podman: the API service answers on $PODMAN_SOCKET"
    return 0
  fi
  local pid waited=0
  pid=$(cat "$PODMAN_PIDFILE" 2>/dev/null || true)
  if is_podman_service_pid "$pid"; then
    note "podman: the service (pid $pid) is running but not answering yet: waiting for it"
  else
    if [[ -e "$PODMAN_SOCKET" ]]; then
      note "podman: removing the stale socket $PODMAN_SOCKET (no service answers on it)"
      rm -f "$PODMAN_SOCKET"
    fi
    mkdir -p "$(dirname "$PODMAN_SOCKET")" "$(dirname "$PODMAN_LOG")"
    chmod 0700 "$(dirname "$PODMAN_SOCKET")" # root's engine: nobody else may reach its socket
    note "podman: starting podman system service --time=0 unix://$PODMAN_SOCKET (log: $PODMAN_LOG)"
    # its own session, so it outlives this script and no signal to our process group reaches it; from / (no files
    # in the checkout)
    (cd / && exec setsid podman system service --time=0 "unix://$PODMAN_SOCKET") >>"$PODMAN_LOG" 2>&1 </dev/null &
    pid=$!
    printf '%s\n' "$pid" >"$PODMAN_PIDFILE"
  fi
  until podman_answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$PODMAN_LOG" >&2 2>/dev/null || true
      fail "podman: the API service (pid $pid) exited before it answered on $PODMAN_SOCKET"
    fi
    if ((waited >= PODMAN_WAIT * 10)); then
      tail -n 20 "$PODMAN_LOG" >&2 2>/dev/null || true
      fail "podman: no answer on $PODMAN_SOCKET after ${PODMAN_WAIT} s"
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  note "podman: the API service answers on $PODMAN_SOCKET after $((waited / 10)).$((waited % 10)) s"
}

# Base images Podman lacks, or holds in another version than Docker's (same name, other id).
podman_missing_images() {
  local image want have
  for image in $PODMAN_IMAGES; do
    want=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null) || fail "podman: Docker has no $image to load into Podman (setup_machine makes it)"
    have=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
    [[ "sha256:${have#sha256:}" == "$want" ]] || printf '%s\n' "$image"
  done
}

# Loads the base images Podman lacks from Docker (no registry is reachable here).
ensure_podman_images() {
  local missing start=$SECONDS
  missing=$(podman_missing_images) || fail "podman: could not compare the base images of Docker and Podman"
  missing=$(printf '%s\n' "$missing" | tr '\n' ' ')
  if [[ -z "${missing// /}" ]]; then
    note "podman: base images present: $PODMAN_IMAGES"
    return 0
  fi
  note "podman: loading ${missing}from Docker (docker save | podman load)"
  # shellcheck disable=SC2086
  docker save $missing | podman load -q >/dev/null || fail "podman: loading $missing into Podman failed"
  note "podman: base images loaded in $((SECONDS - start)) s"
}

ensure_podman() {
  if ((PODMAN_UID != 0)); then
    # the tests use root's Podman service; a user can only check that it answers
    podman_answers && { note "podman: the API service answers on $PODMAN_SOCKET"; return 0; }
    printf '[%s] podman: no Podman API service answers on %s; as root run: sudo bash scripts/ci/podman.sh\n' "$(date -u +%H:%M:%S)" "$PODMAN_SOCKET" >&2
    return 1
  fi
  if command -v podman >/dev/null && command -v catatonit >/dev/null; then
    note "podman: installed: $(podman --version), catatonit"
  else
    # Recommends bring what a root Podman needs here (runc, conmon, fuse-overlayfs, slirp4netns, the CNI plugins)
    ensure_packages podman catatonit
  fi
  ensure_podman_service
  ensure_podman_images
}

# run as a script (not sourced): do it all with lib.sh's helpers
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  # shellcheck source=lib.sh
  source scripts/ci/lib.sh
  ensure_podman
fi
