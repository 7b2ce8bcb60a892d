#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages Meridian builds, tests and benchmarks with.
# Installs nothing when everything is already there.
set -euo pipefail

packages=(
    build-essential g++ make autoconf automake libtool pkg-config
    libltdl-dev libboost-program-options-dev libboost-graph-dev nlohmann-json3-dev check
    libhwloc-dev hwloc libfabric-dev libucx-dev ucx-utils libpmix-dev libsodium-dev
    openmpi-bin libopenmpi-dev python3
    clang libclang-rt-14-dev clang-format
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
    echo "deps: all ${#packages[@]} packages present"
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
echo "deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
