#!/bin/sh
# Embedding: an outer autotools project (outer/) takes Meridian's distributed
# sources as its subdirectory meridian/ (AC_CONFIG_SUBDIRS), builds them
# statically with its own environment prefix, and runs a program that checks
# what it got through the C and C++ API.
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
grep -q "MCA environment prefix *EMBED_MCA_" "$work/configure.log" ||
    fail "meridian/configure did not take --with-mca-env-prefix=EMBED_MCA_ (see $work/configure.log)"
grep -q "components as *part of libmeridian (--disable-dlopen)" "$work/configure.log" ||
    fail "meridian/configure did not take --disable-dlopen (see $work/configure.log)"
run_logged "$work/build.log" "$MAKE" -j2
[ ! -e meridian/.libs/libmeridian.so ] || fail "a shared libmeridian was built despite --disable-shared"
[ -e meridian/.libs/libmeridian.a ] || fail "no static libmeridian was built"

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
echo "PASS: Meridian embedded statically with prefix EMBED_MCA_"
