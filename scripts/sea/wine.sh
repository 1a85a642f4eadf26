#!/usr/bin/env bash
# What running dist/mcpbox-win-x64.exe on Linux needs (test/platforms.test.ts): Debian's wine64 and a Wine prefix that
# reports Windows 10 (Node refuses the default Windows 7). Installs as root; as another user it names the command.
# Prints the wine64 program. Quick when everything is there. Usage: scripts/sea/wine.sh <prefix folder>
set -euo pipefail
prefix="${1:?usage: wine.sh <prefix folder>}"
say() { printf 'wine: %s\n' "$*" >&2; }
wine=/usr/lib/wine/wine64
apt=(apt-get -q -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300)
if [[ ! -x "$wine" ]]; then
  if [[ $EUID -ne 0 ]]; then say "run: sudo apt-get install --no-install-recommends wine64"; exit 1; fi
  say "installing wine64"
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends wine64 >/dev/null 2>&1 ||
    { "${apt[@]}" update >/dev/null && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends wine64 >/dev/null; }
fi
if [[ ! -e "$prefix/.win10" ]]; then
  mkdir -p "$prefix"
  WINEPREFIX="$prefix" WINEDEBUG=-all "$wine" reg add 'HKCU\Software\Wine' /v Version /d win10 /f >/dev/null 2>&1
  touch "$prefix/.win10"
fi
printf '%s\n' "$wine"
