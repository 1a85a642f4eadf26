#!/bin/sh
# rootfs.sh <dest> <file>...: copies each file (and the symlinks leading to it) and every shared library that
# `ldd` lists for it into <dest>, at the same paths, then adds the non-root user 1000. The final stage is
# `FROM scratch` plus this folder: no shell, no package manager, nothing the server does not load.
set -eu
dest="$1"
shift
mkdir -p "$dest"

copy_path() { # copies a path with its symlink chain, so links keep pointing at real files
  p="$1"
  while [ -L "$p" ]; do
    cp -P --parents "$p" "$dest"
    target="$(readlink "$p")"
    case "$target" in /*) p="$target" ;; *) p="$(dirname "$p")/$target" ;; esac
  done
  cp -L --parents "$p" "$dest"
}

for f in "$@"; do
  [ -e "$dest$f" ] || copy_path "$f"
  # ldd prints "libx.so => /path/libx.so (0x..)" and "/lib64/ld-linux-x86-64.so.2 (0x..)"
  for lib in $(ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
    [ -e "$dest$lib" ] || copy_path "$lib"
  done
done

mkdir -p "$dest/etc" "$dest/tmp" "$dest/home/mcp"
chmod 1777 "$dest/tmp"
chown 1000:1000 "$dest/home/mcp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nmcp:x:1000:1000:mcp:/home/mcp:/sbin/nologin\n' >"$dest/etc/passwd"
printf 'root:x:0:\nmcp:x:1000:\n' >"$dest/etc/group"
# the loader's cache lets binaries find libraries outside the default folders (e.g. /usr/local/lib)
if [ -f /etc/ld.so.cache ]; then cp /etc/ld.so.cache "$dest/etc/ld.so.cache"; fi
