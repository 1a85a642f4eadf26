#!/usr/bin/env bash
# What running dist/mcpbox-linux-arm64 on an x86-64 machine needs (test/platforms.test.ts): Debian's
# qemu-user-static, and an arm64 glibc and libstdc++ for Node's dynamic loader, unpacked from Debian's arm64
# packages into a folder (nothing installed for arm64 system-wide). Prints the folder to pass as `qemu -L`.
# Installs as root; as another user it names the command to run. Quick when everything is there.
# Usage: scripts/sea/qemu-arm64.sh <sysroot folder>
set -euo pipefail
root="${1:?usage: qemu-arm64.sh <sysroot folder>}"
say() { printf 'qemu-arm64: %s\n' "$*" >&2; }
as_root() {
  if [[ $EUID -ne 0 ]]; then say "needs root for: $*"; say "run: sudo $*"; exit 1; fi
  "$@"
}
apt=(apt-get -q -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300)

if ! command -v qemu-aarch64-static >/dev/null; then
  say "installing qemu-user-static"
  as_root "${apt[@]}" install -y qemu-user-static >/dev/null 2>&1 ||
    { as_root "${apt[@]}" update >/dev/null && as_root "${apt[@]}" install -y qemu-user-static >/dev/null; }
fi

libs=(libc6 libstdc++6 libgcc-s1)
if [[ ! -e "$root/.complete" ]]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    say "adding the arm64 package lists (dpkg --add-architecture arm64)"
    as_root dpkg --add-architecture arm64
    as_root "${apt[@]}" update >/dev/null
  fi
  tmp="$root.$$.tmp"
  rm -rf "$tmp" && mkdir -p "$tmp/debs"
  say "fetching ${libs[*]} for arm64"
  (cd "$tmp/debs" && apt-get download -q "${libs[@]/%/:arm64}" >/dev/null) ||
    { as_root "${apt[@]}" update >/dev/null && (cd "$tmp/debs" && apt-get download -q "${libs[@]/%/:arm64}" >/dev/null); }
  for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  touch "$tmp/root/.complete"
  rm -rf "$root" && mv "$tmp/root" "$root" && rm -rf "$tmp"
fi
printf '%s\n' "$root"
