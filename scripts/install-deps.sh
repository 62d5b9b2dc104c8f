#!/bin/sh
# Installs the Debian packages dashsim needs, only those missing. Called by `make run` and `make test`.
set -e
pkgs="libigraph-dev libglib2.0-dev libcjson-dev zlib1g-dev check gnuplot-nox pkg-config gcc make time python3 parallel"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
