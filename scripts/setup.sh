#!/usr/bin/env bash
# What `npm run main` and `npm test` need on this machine, before they start: their npm pre-hooks run it, and
# .ci/run does. As root on Debian or Ubuntu it installs and starts what is missing (the Docker engine, tmux and git,
# the local base images), a line per step; as another user it checks, and stops before any slow step with the exact
# commands to run. Quick when everything is there. Usage: scripts/setup.sh main|test
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=ci/lib.sh
source scripts/ci/lib.sh

job="${1:-test}"
[[ "$job" == main || "$job" == test ]] || fail "usage: scripts/setup.sh main|test"
if [[ "${MCPBOX_SETUP_DONE:-}" == 1 ]]; then
  note "setup: done already (MCPBOX_SETUP_DONE=1)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
setup_machine "$job"
if [[ "$job" == test ]]; then
  # the "podman" project of the end-to-end tests runs against Podman's Docker API on a socket of its own
  # shellcheck source=ci/podman.sh
  source scripts/ci/podman.sh
  ensure_podman
fi
