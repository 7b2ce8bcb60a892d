#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Embedding: an outer autotools project (outer/) takes Meridian's distributed
# sources as its subdirectory meridian/ and sets them up with
# MERIDIAN_SETUP_EMBEDDED (config/meridian_embed.m4): embedded mode, static,
# with its own environment prefix, exported-name prefix and component
# directory.  Two programs check what they got: one from a C++ main through
# the C and C++ API, one from a C main (linked by the C compiler) through the
# C API; nothing but the outer programs' own needs is built or installed.
#
# Needs from the environment (Makefile.am): MAKE, CC, CXX, top_builddir, srcdir.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-embed.XXXXXX")
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$work"; else echo "work files kept in $work" >&2; fi' EXIT

# Runs a command with its output in a log file; shows the log's end on
# failure, and how long it took (this test is the slow one of the suite).
run_logged() {
    log=$1
    shift
    start=$(date +%s)
    if ! "$@" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        fail "$* (log: $log)"
    fi
    echo "$(basename "$log" .log): $(($(date +%s) - start)) s"
}

# The embedding does not depend on how this tree was configured, so CI runs it
# in one build only and sets MERIDIAN_TEST_EMBED=no in the others.
if [ "${MERIDIAN_TEST_EMBED:-yes}" = no ]; then
    echo "SKIP: MERIDIAN_TEST_EMBED=no (the embedding is tested in another build)"
    exit 77
fi

# The jobserver of the make running the tests is not for these nested builds.
unset MAKEFLAGS MFLAGS MAKELEVEL

outer=$work/outer
cp -R "$srcdir/outer" "$outer"
chmod -R u+w "$outer" # copies of a read-only source tree (distcheck)
# Automake's distdir must be relative to the top build directory.
distdir=$(realpath -m --relative-to="$top_builddir" "$outer/meridian")
run_logged "$work/distdir.log" "$MAKE" -C "$top_builddir" distdir distdir="$distdir"

# Only the outer project is generated here: meridian/ comes with its configure.
cd "$outer"
run_logged "$work/autoreconf.log" autoreconf --install --no-recursive
# -O0: this build only has to run, and is the slowest part of the test suite;
# -C: meridian/configure reuses the outer configure's answers.
run_logged "$work/configure.log" ./configure -C CC="$CC" CXX="$CXX" CFLAGS=-O0 CXXFLAGS=-O0
expect_summary() {
    grep -q "$1" "$work/configure.log" || fail "meridian/configure's summary lacks '$1': $2 (see $work/configure.log)"
}
expect_summary "MCA environment prefix *EMBED_MCA_" "--with-mca-env-prefix=EMBED_MCA_ not taken"
expect_summary "components as *part of libmeridian (--disable-dlopen)" "embedded mode builds the components in"
expect_summary "embedded mode *yes (tools: no, QMP: no)" "embedded mode not taken"
expect_summary "exported C names *embed_meridian_\\*" "--with-symbol-prefix=embed_meridian_ not taken"
expect_summary "component directory *\\\${libdir}/embed/components" "--with-component-dir not taken"
run_logged "$work/build.log" "$MAKE" -j2
[ ! -e meridian/.libs/libmeridian.so ] || fail "a shared libmeridian was built in embedded mode"
[ -e meridian/.libs/libmeridian.a ] || fail "no static libmeridian was built"
for unwanted in meridian/meridian_info meridian/meridian_carto meridian/meridian_netmap meridian/.libs/libqmp.a \
    meridian/libqmp.la meridian/test/params/check_param_types meridian/test/support/.libs; do
    [ ! -e "$unwanted" ] || fail "embedded mode built $unwanted, which nobody asked for"
done
# Nothing of Meridian is installed by the outer project's install.
run_logged "$work/install.log" "$MAKE" install DESTDIR="$work/dest"
installed=$(cd "$work/dest" 2>/dev/null && find . -type f | sort)
[ -z "$installed" ] || fail "the outer install installed Meridian's files: $installed"

# The exported-name prefix: the programs hold Meridian's C API under
# embed_meridian_*, and no meridian_* C name is left.
for program in embed embed_c; do
    nm "$program" | awk '{ print $NF }' | grep -qx 'embed_meridian_init' ||
        fail "$program has no embed_meridian_init (the symbol prefix was not applied)"
    left=$(nm "$program" | awk '{ print $NF }' | grep '^meridian_' || true)
    [ -z "$left" ] || fail "$program still has C names beginning with meridian_: $left"
done
# embed_c is a C program, linked by the C compiler.
grep -Eq -- "--tag=CC +--mode=link $CC .*-o embed_c " "$work/build.log" ||
    fail "embed_c was not linked by the C compiler $CC (see $work/build.log)"

# Run it with a clean HOME, no param files and no component directories.
export HOME="$work/home"
mkdir -p "$HOME/empty"
tune=$work/tune.conf
echo "msg_base_verbose = debug" >"$tune"
out=$work/embed.out
rc=0
env EMBED_MCA_mca_base_param_files=none EMBED_MCA_mca_base_component_path="$HOME/empty" \
    EMBED_MCA_carto_base_verbose=max MERIDIAN_MCA_pnet_base_verbose=max \
    ./embed alpha --mca coord_base_verbose warn --beta --tune "$tune" gamma >"$out" 2>&1 || rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "the embedding program exited $rc"
grep -qx "embed: 0 check(s) failed" "$out" || fail "the embedding program did not finish its checks"
[ "$(grep -c '^ok: ' "$out")" -eq 9 ] || fail "expected 9 checks to pass"

out_c=$work/embed_c.out
rc=0
env EMBED_MCA_mca_base_param_files=none EMBED_MCA_carto_base_verbose=max \
    EMBED_COMPONENT_DIR=/usr/local/lib/embed/components \
    ./embed_c alpha --mca coord_base_verbose warn --beta gamma >"$out_c" 2>&1 || rc=$?
cat "$out_c"
[ $rc -eq 0 ] || fail "the C embedding program exited $rc"
grep -qx "embed_c: 0 check(s) failed" "$out_c" || fail "the C embedding program did not finish its checks"
[ "$(grep -c '^ok: ' "$out_c")" -eq 7 ] || fail "expected 7 checks of the C program to pass"
echo "PASS: Meridian embedded statically (MERIDIAN_SETUP_EMBEDDED) with prefixes EMBED_MCA_ and embed_meridian_, from C++ and C"
