#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --with-meridian (MERIDIAN_SETUP, config/meridian_embed.m4): an outer project
# (external/) that may use its own copy of Meridian or an installed one, as
# Open MPI lets its user choose for PMIx and hwloc.  This build of Meridian
# is installed under a temporary root; the outer project is configured with
# a wrong choice, with internal while it carries no sources (both must stop
# with their reason), and with --with-meridian=PREFIX, and the program it
# builds must run on the installed library.  (The internal choice is
# MERIDIAN_SETUP_EMBEDDED, which embed.sh checks.)
#
# Needs from the environment (Makefile.am): MAKE, CC, CXX, top_builddir,
# srcdir, prefix, libdir.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

# fail, run_logged
# shellcheck source=test/support/build_test_lib.sh
. "$srcdir/../support/build_test_lib.sh"

if [ "${MERIDIAN_TEST_EMBED:-yes}" = no ]; then
    echo "SKIP: MERIDIAN_TEST_EMBED=no (the embedding is tested in another build)"
    exit 77
fi
if [ "$libdir" != "$prefix/lib" ]; then
    echo "SKIP: libdir ($libdir) is not PREFIX/lib, which --with-meridian=PREFIX looks in"
    exit 77
fi
unset MAKEFLAGS MFLAGS MAKELEVEL

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-external.XXXXXX")
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$work"; else echo "work files kept in $work" >&2; fi' EXIT

# Meridian installed as a package would be, under a temporary root.
run_logged "$work/install.log" "$MAKE" -C "$top_builddir" install DESTDIR="$work/root"
installed=$work/root$prefix
[ -f "$installed/lib/pkgconfig/meridian.pc" ] || fail "make install put no meridian.pc in $installed/lib/pkgconfig"

# The outer project, carrying only Meridian's macro file (no sources).
outer=$work/external
cp -R "$srcdir/external" "$outer"
mkdir -p "$outer/meridian/config"
cp "$srcdir/../../config/meridian_embed.m4" "$outer/meridian/config/"
chmod -R u+w "$outer"
cd "$outer"
run_logged "$work/autoreconf.log" autoreconf --install

# configure_fails LOG MESSAGE ARGS...: the outer configure stops, saying MESSAGE.
configure_fails() {
    log=$1
    message=$2
    shift 2
    rc=0
    ./configure CC="$CC" CXX="$CXX" "$@" >"$log" 2>&1 || rc=$?
    [ $rc -ne 0 ] || fail "./configure $* went on (see $log)"
    grep -qF -- "error: $message" "$log" || fail "./configure $* did not say '$message' (see $log)"
    echo "./configure $*: stops with '$message'"
}
configure_fails "$work/bad.log" \
    "--with-meridian=sideways: expected internal, external, no or an absolute PREFIX" --with-meridian=sideways
configure_fails "$work/internal.log" \
    "Meridian embedding: ./meridian does not hold Meridian's sources (no opal/mca/mca.h)" --with-meridian=internal
configure_fails "$work/nowhere.log" \
    "--with-meridian=$work/nowhere: no meridian.pc in $work/nowhere/lib/pkgconfig or $work/nowhere/lib64/pkgconfig" \
    --with-meridian="$work/nowhere"

run_logged "$work/configure.log" ./configure CC="$CC" CXX="$CXX" --with-meridian="$installed"
version=$(sed -n 's/^Version: //p' "$installed/lib/pkgconfig/meridian.pc")
grep -q "^configure: using Meridian $version (external), C names meridian_\\*, environment MERIDIAN_MCA_\\*, components: .*carto/file" \
    "$work/configure.log" || fail "the outer configure did not read the installed Meridian (see $work/configure.log)"
run_logged "$work/build.log" "$MAKE"
out=$work/prog.out
rc=0
env MERIDIAN_MCA_mca_base_param_files=none MERIDIAN_MCA_mca_base_component_path="$installed/lib/meridian" \
    ./prog >"$out" 2>&1 || rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "the program built against the installed Meridian exited $rc"
grep -qx "prog: Meridian $version, environment prefix MERIDIAN_MCA_" "$out" ||
    fail "the program did not run on the installed Meridian"
ldd ./prog | grep -q "libmeridian.so.0 => $installed/lib/libmeridian.so.0" ||
    fail "the program does not run on the installed library: $(ldd ./prog | grep libmeridian)"
echo "PASS: --with-meridian=PREFIX builds on an installed Meridian; wrong choices stop configure with their reason"
