#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Meridian on Debian 13 ("trixie") from another Linux machine, as root: a
# root directory made with debootstrap from Debian's package archive, a
# fresh clone of this repository's HEAD in it, and a command run there.
#
#   contrib/scripts/debian13.sh [--root DIR] check    CI's Debian 13 stage: the packages
#                                                     (deps.sh), the build, the unit tests
#                                                     and the launcher tests
#   contrib/scripts/debian13.sh [--root DIR] main     the README's first command
#   contrib/scripts/debian13.sh [--root DIR] run CMD  CMD in the clone (bash -c)
#
# DIR (default build-debian13/root at the top of the tree) is made the first
# time and kept; the clone in it is made anew each time (uncommitted changes
# are not in it: commit first).  What the script mounts in the root (proc,
# sys, dev, dev/pts, dev/shm) is unmounted when it ends -- also when the
# command fails or the script is interrupted -- after every process still
# running in the root has been ended.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$top/build-debian13/root
while [ $# -gt 0 ]; do
    case $1 in
    --root)
        root=$2
        shift 2
        ;;
    *) break ;;
    esac
done
case $root in /*) ;; *) root=$PWD/$root ;; esac
what=${1:-}
case $what in
check | main) ;;
run) [ $# -ge 2 ] || { echo "debian13.sh: run needs a command" >&2; exit 2; } ;;
*)
    echo "usage: contrib/scripts/debian13.sh [--root DIR] check|main|run CMD" >&2
    exit 2
    ;;
esac
[ "$(id -u)" = 0 ] || { echo "debian13.sh: run it as root (debootstrap and chroot need it)" >&2; exit 1; }
mirror=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
log=$(dirname "$root")/debian13.log
mkdir -p "$(dirname "$root")"

say() { echo "debian13: $*"; }

# ---------------------------------------------------------------- the root
if [ ! -x "$root/usr/bin/apt-get" ]; then
    if ! command -v debootstrap >/dev/null 2>&1; then
        say "installing debootstrap (its output: $log)"
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; } \
            >>"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
    fi
    say "making the root $root from $mirror (debootstrap; its output: $log)"
    rm -rf "$root"
    mkdir -p "$root"
    if ! debootstrap --variant=minbase trixie "$root" "$mirror" >>"$log" 2>&1; then
        echo "debian13: debootstrap failed; the end of $log:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
fi

# ---------------------------------------------------------------- mounts, and their end
mounted=()
mount_in() { # mount_in TARGET mount-arguments...
    local target=$root${1:+/$1}
    shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounted+=("$target")
}
cleanup() {
    local status=$?
    set +e
    # What the command left running in the root (daemons of a failed test)
    # holds its mounts: ended first, bounded.
    local pid tries
    for tries in 1 2 3 4 5; do
        local left=()
        for pid in /proc/[0-9]*; do
            [ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && left+=("${pid#/proc/}")
        done
        [ ${#left[@]} -eq 0 ] && break
        kill -9 "${left[@]}" 2>/dev/null || true
        sleep 1
    done
    # Whatever was mounted below the root meanwhile (network namespaces of
    # the simulated hosts), then ours, innermost first.
    { findmnt -rn -o TARGET | grep "^$root/" || true; } | sort -r | while read -r target; do
        umount -l "$target" 2>/dev/null || true
    done
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${mounted[i]}" 2>/dev/null || true
    done
    if findmnt -rn -o TARGET | grep -q "^$root/"; then
        echo "debian13: still mounted below $root:" >&2
        findmnt -rn -o TARGET | grep "^$root/" >&2
        status=1
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
# The root a mount of its own, private to it, so that "/" is a mount point
# inside (ip netns, for the simulated hosts, makes it a slave) and nothing
# mounted inside reaches this machine's tree.
mount_in "" --bind "$root"
mount --make-private "$root"
mount_in proc -t proc proc
mount_in sys -t sysfs sys
mount_in dev --bind /dev
mount_in dev/pts --bind /dev/pts
mount_in dev/shm -t tmpfs -o mode=1777 shm
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

# ---------------------------------------------------------------- the clone
say "cloning $(git -C "$top" rev-parse --short HEAD) into $root/src/meridian"
rm -rf "$root/src/meridian"
mkdir -p "$root/src"
git clone -q "$top" "$root/src/meridian"

in_root() {
    chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" \
        ${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} \
        bash -c "cd /src/meridian && $1"
}
case $what in
check) in_root "contrib/scripts/check.sh --lean" ;;
main) in_root "contrib/scripts/main.sh" ;;
run) in_root "$2" ;;
esac
