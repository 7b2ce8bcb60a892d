#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian packages Meridian builds, tests and benchmarks with, for
# the release this machine runs (Debian 12 "bookworm" or 13 "trixie").
# Installs nothing when everything is already there.  A line per step on the
# terminal; apt's own output goes to a log ($MERIDIAN_DEPS_LOG, default
# /tmp/meridian-deps.log), whose end is shown when a step fails.
set -euo pipefail

release=unknown
if [ -r /etc/os-release ]; then
    release=$(. /etc/os-release && echo "${ID:-}:${VERSION_ID:-${VERSION_CODENAME:-}}")
fi
# What differs between the releases: the compiler runtime's version (the
# sanitizers and libFuzzer need the one of the installed clang).
case "$release" in
debian:12 | debian:bookworm) clang_rt=libclang-rt-14-dev ;;
debian:13 | debian:trixie) clang_rt=libclang-rt-19-dev ;;
*)
    echo "deps: this is '$release', not Debian 12 or 13; install by hand the packages" \
        "contrib/scripts/deps.sh lists (README: 'Two commands')" >&2
    exit 1
    ;;
esac

packages=(
    build-essential g++ make autoconf automake libtool pkg-config
    libltdl-dev libboost-program-options-dev libboost-graph-dev nlohmann-json3-dev check
    libhwloc-dev hwloc libfabric-dev libucx-dev ucx-utils libpmix-dev libsodium-dev
    openmpi-bin libopenmpi-dev mpich libmpich-dev python3
    clang "$clang_rt" clang-format
    graphviz valgrind cmake
    iproute2 iputils-ping util-linux nftables
    slurm-wlm munge
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all ${#packages[@]} packages present (${release})"
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
log=${MERIDIAN_DEPS_LOG:-/tmp/meridian-deps.log}
: >"$log"
step() {
    local what=$1
    shift
    echo "deps: $what"
    if ! $sudo env DEBIAN_FRONTEND=noninteractive "$@" >>"$log" 2>&1; then
        echo "deps: '$*' failed; the end of $log:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
}
step "reading the package lists (${release}; apt's output: $log)" apt-get update -q
step "installing ${#missing[@]} packages: ${missing[*]}" \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "deps: done"
