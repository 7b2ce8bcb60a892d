#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Embedding: an outer autotools project (outer/) takes Meridian's sources
# twice -- the distributed sources as meridian/, and as other/ the same
# without anything generated (a checkout) -- and sets each up with
# MERIDIAN_SETUP_EMBEDDED (config/meridian_embed.m4): embedded mode, static,
# with its own environment prefix, exported-name prefix and component
# directory.  Checked:
#   - a Meridian configure that fails stops the outer configure at once, with
#     the macro's message, and a missing copy runs the not-happy action;
#   - the outer command line's options do not reach Meridian's configure, and
#     the outer configure reads what Meridian's found;
#   - a C++ and a C program (linked by the C compiler) get what was
#     configured, through the C and C++ API; nothing else is built or
#     installed;
#   - a shared library of the outer project exports its own names and its
#     copy's prefixed C API, nothing else of Meridian's (no C++, no standard
#     library or Boost instances, no component structs);
#   - one process loads both outer libraries and the standalone libmeridian,
#     RTLD_GLOBAL, and each copy keeps its own parameters.
#
# Needs from the environment (Makefile.am): MAKE, CC, CXX, top_builddir, srcdir.
# shellcheck disable=SC2154 # lower-case names come from the environment
set -eu
# Absolute: the test works in other directories (a VPATH build's srcdir is
# relative to the test's).
srcdir=$(cd "$srcdir" && pwd)

# fail, run_logged
# shellcheck source=test/support/build_test_lib.sh
. "$srcdir/../support/build_test_lib.sh"
# This test is the slow one of the suite: each step says how long it took.
RUN_LOGGED_TIMES=yes

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-embed.XXXXXX")
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$work"; else echo "work files kept in $work" >&2; fi' EXIT

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

# other/: the same sources as a checkout has them, nothing generated: the
# macro runs its autogen.sh.
cp -R "$outer/meridian" "$outer/other"
find "$outer/other" -name Makefile.in -exec rm -f {} +
rm -rf "$outer/other/configure" "$outer/other/aclocal.m4" "$outer/other/autom4te.cache"

# Only the outer project is generated here.
cd "$outer"
run_logged "$work/autoreconf.log" autoreconf --install --no-recursive

# A Meridian configure that fails stops the outer one there, before any
# Makefile is written.
rc=0
EMBED_MORE=--with-symbol-prefix=9bad ./configure CC="$CC" CXX="$CXX" >"$work/configure-fails.log" 2>&1 || rc=$?
[ $rc -ne 0 ] || fail "the outer configure went on after Meridian's configure failed (see $work/configure-fails.log)"
grep -q "error: Meridian embedding: Meridian's configure in meridian failed (see meridian/config.log)" \
    "$work/configure-fails.log" || fail "the outer configure did not say why it stopped (see $work/configure-fails.log)"
[ ! -e Makefile ] || fail "the outer configure wrote its Makefile although Meridian's configure failed"
rm -rf meridian/config.log meridian/config.status

# -O0: this build only has to run, and is the slowest part of the test suite;
# -C: Meridian's configures reuse the outer configure's answers.  The outer
# command line's --enable-mca-no-build is the outer project's (unknown to it):
# it must not reach Meridian's configure.
run_logged "$work/configure.log" ./configure -C CC="$CC" CXX="$CXX" CFLAGS=-O0 CXXFLAGS=-O0 \
    --enable-mca-no-build=carto_file
grep -q "^configure: embedded: Meridian [0-9.]*, prefix embed_meridian_, components: .*carto/file" "$work/configure.log" ||
    fail "the outer configure did not read Meridian's results, or the outer --enable-mca-no-build reached Meridian's configure (see $work/configure.log)"
grep -q "^configure: not happy, going on: ./absent does not hold Meridian's sources (no opal/mca/mca.h)" "$work/configure.log" ||
    fail "a copy that is not there did not run the not-happy action (see $work/configure.log)"
grep -q "^configure: Meridian in other has no configure (a checkout): running its autogen.sh" "$work/configure.log" ||
    fail "the checkout copy was not made ready by its autogen.sh (see $work/configure.log)"
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
for copy in meridian other; do
    for unwanted in meridian_info meridian_carto meridian_netmap .libs/libqmp.a libqmp.la \
        test/params/check_param_types test/support/.libs; do
        [ ! -e "$copy/$unwanted" ] || fail "embedded mode built $copy/$unwanted, which nobody asked for"
    done
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

# A component built against the standalone library (as
# contrib/example-component is, with pkg-config), in the user's component
# directory: the embedded copy refuses it, saying why, rather than bring a
# second Meridian into the process.
mkdir -p "$HOME/.meridian/components"
standalone_component=$HOME/.meridian/components/mca_carto_example.so
"$CC" -std=c11 -fPIC -shared -I"$top_builddir/include" -I"$srcdir/../../include" \
    "$srcdir/../../contrib/example-component/carto_example_component.c" \
    -L"$top_builddir/.libs" -lmeridian -o "$standalone_component" ||
    fail "could not build a component against the standalone library"
readelf -d "$standalone_component" | grep -q 'NEEDED.*\[libmeridian\.so' ||
    fail "the component built against the standalone library does not need libmeridian"

out_c=$work/embed_c.out
rc=0
env EMBED_MCA_mca_base_param_files=none EMBED_MCA_carto_base_verbose=max \
    EMBED_COMPONENT_DIR=/usr/local/lib/embed/components \
    ./embed_c alpha --mca coord_base_verbose warn --beta gamma >"$out_c" 2>&1 || rc=$?
cat "$out_c"
[ $rc -eq 0 ] || fail "the C embedding program exited $rc"
grep -qx "embed_c: 0 check(s) failed" "$out_c" || fail "the C embedding program did not finish its checks"
[ "$(grep -c '^ok: ' "$out_c")" -eq 7 ] || fail "expected 7 checks of the C program to pass"
grep -q "$standalone_component: needs libmeridian.so.0, the standalone Meridian: this copy of Meridian is embedded in another library (its C names begin with embed_meridian_), and loading the component would bring a second Meridian into the process" "$out_c" ||
    fail "the embedded copy did not refuse, with its reason, a component built against the standalone library"
# What the outer libraries export: their own names and their copy's C API,
# every name of which is Meridian's (include/meridian/rename.h).
sed -n 's/^#define meridian_\([a-z0-9_]*\) MERIDIAN_NAME(.*/\1/p' meridian/include/meridian/rename.h | sort >"$work/c_api"
[ "$(wc -l <"$work/c_api")" -gt 100 ] || fail "rename.h lists $(wc -l <"$work/c_api") names, expected the whole C API"
for pair in embed:embed_meridian_ other:other_meridian_; do
    copy=${pair%%:*}
    prefix=${pair#*:}
    library=.libs/outer_$copy.so
    [ -e "$library" ] || fail "no $library was built"
    nm -D --defined-only "$library" | awk '{ print $NF }' | sort >"$work/$copy.dynsym"
    stray=$(grep -v -e "^outer_${copy}_" -e "^$prefix" -e '^_init$' -e '^_fini$' "$work/$copy.dynsym" || true)
    [ -z "$stray" ] || fail "$library exports more than its names and $prefix*: $(echo "$stray" | head -n 20 | tr '\n' ' ')($(echo "$stray" | wc -l) names)"
    sed -n "s/^$prefix//p" "$work/$copy.dynsym" | sort >"$work/$copy.api"
    unknown=$(comm -23 "$work/$copy.api" "$work/c_api")
    [ -z "$unknown" ] || fail "$library exports $prefix names that are not the C API: $(echo "$unknown" | tr '\n' ' ')"
    [ "$(wc -l <"$work/$copy.api")" -gt 100 ] ||
        fail "$library exports $(wc -l <"$work/$copy.api") names of the C API, expected it all"
    echo "$library exports $(wc -l <"$work/$copy.api") C names under $prefix and $(grep -c "^outer_${copy}_" "$work/$copy.dynsym") of its own, nothing else"
done

# Both copies and the standalone library in one process.
standalone=$top_builddir/.libs/libmeridian.so
[ -e "$standalone" ] || fail "no standalone $standalone to load beside the copies"
out_two=$work/twocopies.out
rc=0
env EMBED_MCA_mca_base_param_files=none OTHER_MCA_mca_base_param_files=none MERIDIAN_MCA_mca_base_param_files=none \
    EMBED_MCA_carto_base_verbose=3 OTHER_MCA_carto_base_verbose=4 MERIDIAN_MCA_carto_base_verbose=5 \
    ./twocopies "$outer/.libs" "$standalone" >"$out_two" 2>&1 || rc=$?
cat "$out_two"
[ $rc -eq 0 ] || fail "twocopies exited $rc"
grep -qx "twocopies: 0 check(s) failed" "$out_two" || fail "twocopies did not finish its checks"
[ "$(grep -c '^ok: ' "$out_two")" -eq 19 ] || fail "expected 19 checks of twocopies to pass"
echo "PASS: Meridian embedded statically (MERIDIAN_SETUP_EMBEDDED) twice, with prefixes EMBED_MCA_/embed_meridian_ and OTHER_MCA_/other_meridian_, from C++, C and two shared libraries beside the standalone library"
