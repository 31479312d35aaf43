#!/bin/sh
# Installs the Debian packages the toolkit builds and tests with, only when
# something is missing, so `make demo` / `make check` work on a bare machine.
# Arguments are further packages (`make check-cluster` adds Slurm's).
set -eu
PKGS="build-essential pkg-config sqlite3 libsqlite3-dev libprotobuf-c-dev \
protobuf-c-compiler protobuf-compiler libotf2-trace-dev otf2-tools zlib1g-dev \
clang libclang-rt-14-dev valgrind gdb \
libyajl-dev python3 python3-protobuf python3-otf2 flatbuffers-compiler parallel chromium $*"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: missing Debian packages:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps: not root and no sudo; install them with:" >&2
    echo "  apt-get update && apt-get install -y$missing" >&2
    exit 1
  fi
else SUDO=""; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >&2
$SUDO apt-get install -y -q --no-install-recommends $missing >&2
