#!/usr/bin/env bash
# Builds the templates' default base images locally, because no container registry is reachable here:
#   mcpbox-ci/debian:bookworm     debootstrap --variant=minbase + docker import (rootfs tarball cached)
#   node:24-bookworm-slim         that debian + the project's Node 24 binary + npm, user node (1000:1000)
#   python:3.12-slim-bookworm     that debian + Debian's python3, venv and pip, user python (1000:1000)
# Each image carries the label mcpbox.ci-base=true. Images that already exist are kept (FORCE=1 rebuilds them).
# Needs: root (debootstrap), docker, debootstrap, `npm ci` done (node_modules/node/bin/node).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE_DIR="${MCPBOX_CI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/mcpbox-ci}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# names overridable so the script can be exercised without touching the shared images
DEBIAN_IMAGE="${DEBIAN_IMAGE:-mcpbox-ci/debian:bookworm}"
NODE_IMAGE="${NODE_IMAGE:-node:24-bookworm-slim}"
PYTHON_IMAGE="${PYTHON_IMAGE:-python:3.12-slim-bookworm}"
LABEL="mcpbox.ci-base=true"
FORCE="${FORCE:-0}"
export DOCKER_BUILDKIT=0 # the classic builder: no buildx here, and it uses local base images without pulling

log() { printf '[%s] base-images: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Runs "$@" and logs how long it took.
timed() {
  local what="$1" start=$SECONDS
  shift
  "$@"
  log "$what: $((SECONDS - start)) s"
}

# True once process $2 has ended, false when $1 seconds passed first.
wait_up_to() {
  local i
  for ((i = 0; i < $1 * 10; i++)); do kill -0 "$2" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}

# docker build -q, without the legacy builder's deprecation notice (the classic builder is the one that works here)
quiet_build() {
  local out status=0
  out=$(docker build -q "$@" 2>&1 >/dev/null) || status=$?
  out=$(sed '/^DEPRECATED: The legacy builder/,/^$/d' <<<"$out")
  [[ -z "$out" ]] || printf '%s\n' "$out" >&2
  return "$status"
}

has_image() { [[ "$FORCE" != 1 ]] && docker image inspect "$1" >/dev/null 2>&1; }

rootfs_tarball() {
  local tarball="$CACHE_DIR/debian-bookworm-minbase.tar"
  if [[ -s "$tarball" ]]; then
    log "using cached rootfs $tarball"
    echo "$tarball"
    return
  fi
  [[ $EUID -eq 0 ]] || die "debootstrap needs root (or put a rootfs tarball at $tarball)"
  command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
  mkdir -p "$CACHE_DIR"
  local root
  root="$(mktemp -d "$CACHE_DIR/rootfs.XXXXXX")"
  log "debootstrap --variant=minbase bookworm from $MIRROR (about 30 s; log: $CACHE_DIR/debootstrap.log)"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR" >"$CACHE_DIR/debootstrap.log" 2>&1 &
  local pid=$! status=0
  trap 'kill "$pid" 2>/dev/null || true' EXIT # stopped with this script, never left running alone
  # a line every 10 s, so a slow mirror does not look like a hang
  while ! wait_up_to 10 "$pid"; do log "debootstrap: $(grep -c '^I: ' "$CACHE_DIR/debootstrap.log") steps done; last: $(grep '^I: ' "$CACHE_DIR/debootstrap.log" | tail -n 1 | cut -c4-)"; done
  wait "$pid" || status=$?
  trap - EXIT
  ((status == 0)) ||
    { tail -n 30 "$CACHE_DIR/debootstrap.log" >&2; rm -rf "$root"; die "debootstrap failed (log: $CACHE_DIR/debootstrap.log)"; }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar --numeric-owner -C "$root" -cf "$tarball.part" .
  mv "$tarball.part" "$tarball"
  rm -rf "$root"
  echo "$tarball"
}

build_debian() {
  if has_image "$DEBIAN_IMAGE"; then log "$DEBIAN_IMAGE exists"; return; fi
  log "$DEBIAN_IMAGE: a minimal Debian bookworm root file system, imported"
  local tarball
  tarball="$(rootfs_tarball)"
  docker import \
    --change "LABEL $LABEL" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["bash"]' \
    "$tarball" "$DEBIAN_IMAGE" >/dev/null
}

# The build context: the project's Node 24 binary (stripped when possible) and the machine's npm.
node_context() {
  local ctx="$1" node="$REPO/node_modules/node/bin/node" npm_dir
  [[ -x "$node" ]] || die "$node is missing: run npm ci first"
  npm_dir="$(npm root -g)/npm"
  [[ -f "$npm_dir/bin/npm-cli.js" ]] || die "npm not found at $npm_dir"
  cp "$node" "$ctx/node"
  if command -v strip >/dev/null; then strip "$ctx/node"; fi
  cp -a "$npm_dir" "$ctx/npm"
  cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node \\
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENV NODE_VERSION=$("$node" --version | tr -d v)
LABEL $LABEL
CMD ["node"]
EOF
}

build_node() {
  if has_image "$NODE_IMAGE"; then log "$NODE_IMAGE exists"; return; fi
  log "$NODE_IMAGE: the project's Node 24 and npm on $DEBIAN_IMAGE"
  local ctx
  ctx="$(mktemp -d)"
  node_context "$ctx"
  quiet_build -t "$NODE_IMAGE" "$ctx" || { rm -rf "$ctx"; die "building $NODE_IMAGE failed"; }
  rm -rf "$ctx"
}

build_python() {
  if has_image "$PYTHON_IMAGE"; then log "$PYTHON_IMAGE exists"; return; fi
  log "$PYTHON_IMAGE: apt-get installs python3 inside a container (under a minute)"
  local ctx
  ctx="$(mktemp -d)"
  # The official image lets pip install anywhere, so Debian's PEP 668 marker goes; python/pip names as there.
  cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv python3-pip \\
 && rm -rf /var/lib/apt/lists/* /usr/lib/python3*/EXTERNALLY-MANAGED \\
 && ln -s /usr/bin/python3 /usr/local/bin/python \\
 && ln -s /usr/bin/pip3 /usr/local/bin/pip \\
 && groupadd --gid 1000 python \\
 && useradd --uid 1000 --gid python --shell /bin/bash --create-home python \\
 && python3 -m venv /tmp/venv-check && rm -rf /tmp/venv-check
LABEL $LABEL
CMD ["python3"]
EOF
  quiet_build -t "$PYTHON_IMAGE" "$ctx" || { rm -rf "$ctx"; die "building $PYTHON_IMAGE failed"; }
  rm -rf "$ctx"
}

main() {
  docker info >/dev/null 2>&1 || die "no Docker engine reachable (docker info failed)"
  if has_image "$NODE_IMAGE" && has_image "$PYTHON_IMAGE"; then
    log "$NODE_IMAGE and $PYTHON_IMAGE exist: nothing to do"
    return
  fi
  local start=$SECONDS
  timed "$DEBIAN_IMAGE" build_debian
  timed "$NODE_IMAGE" build_node
  timed "$PYTHON_IMAGE" build_python
  log "done in $((SECONDS - start)) s"
}

main "$@"
