#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A QMP program built the way applications build against QMP: the build is
# installed into a scratch DESTDIR, then qmp_config_prog.c is compiled with
#   cc $(qmp-config --cflags) prog.c $(qmp-config --ldflags) $(qmp-config --libs)
# (qmp-config is relocatable: run from the DESTDIR it names the DESTDIR), and
# with pkg-config's flags for qmp (PKG_CONFIG_PATH, prefix redefined to the
# DESTDIR's), and run alone and under mpirun -np 2 with the installed
# libraries and components.  Likewise an MPI + QMP program, without and with
# QMP's MPI part (qmp-config --mpi, pkg-config qmp-mpi).
# shellcheck disable=SC2154 # lower-case names come from the environment
# From the environment (Makefile.am): MAKE, CC, SANFLAGS, top_builddir,
# prefix, libdir, bindir, includedir, QMP_TEST_SRC.
# shellcheck source=qmp_lib.sh
. "$QMP_TEST_SRC/qmp_lib.sh"

# The jobserver of the make running the tests is not for the nested install.
unset MAKEFLAGS MFLAGS MAKELEVEL

work=$(mktemp -d "${TMPDIR:-/tmp}/qmp-config.XXXXXX")
trap 'rm -f "$QMP_OUT" "$QMP_ERR"; if [ $qmp_status -eq 0 ]; then rm -rf "$work"; else echo "work files kept in $work"; fi' EXIT
dest="$work/dest"

start=$(date +%s)
if ! $MAKE -C "$top_builddir" install DESTDIR="$dest" >"$work/install.log" 2>&1; then
    tail -n 30 "$work/install.log"
    qmp_fail "make install DESTDIR=$dest (log: $work/install.log)"
    exit 1
fi
echo "installed into $dest in $(($(date +%s) - start)) s"

qmp_config="$dest$bindir/qmp-config"
if [ ! -x "$qmp_config" ]; then
    qmp_fail "qmp-config is not installed at $qmp_config"
    exit 1
fi

# qmp-config names the DESTDIR's directories when run from there.
cflags=$("$qmp_config" --cflags) || qmp_fail "qmp-config --cflags failed"
ldflags=$("$qmp_config" --ldflags) || qmp_fail "qmp-config --ldflags failed"
libs=$("$qmp_config" --libs) || qmp_fail "qmp-config --libs failed"
version=$("$qmp_config" --version) || qmp_fail "qmp-config --version failed"
echo "qmp-config: --cflags '$cflags' --ldflags '$ldflags' --libs '$libs' --version '$version'"
case " $cflags " in
*" -I$dest$includedir "*) ;;
*) qmp_fail "qmp-config --cflags: expected -I$dest$includedir (relocated), got '$cflags'" ;;
esac
case " $ldflags " in
*" -L$dest$libdir "*) ;;
*) qmp_fail "qmp-config --ldflags: expected -L$dest$libdir (relocated), got '$ldflags'" ;;
esac
case " $libs " in
*" -lqmp "*) ;;
*) qmp_fail "qmp-config --libs: expected -lqmp, got '$libs'" ;;
esac
pc_version=$(PKG_CONFIG_PATH="$dest$libdir/pkgconfig" pkg-config --modversion qmp) ||
    qmp_fail "pkg-config --modversion qmp failed"
[ "$version" = "$pc_version" ] ||
    qmp_fail "qmp-config --version ($version) and qmp.pc's version ($pc_version) differ"

# shellcheck disable=SC2086 # flags are lists of words
if ! $CC $SANFLAGS $cflags "$QMP_TEST_SRC/qmp_config_prog.c" $ldflags $libs \
    -o "$work/prog_qmp_config" >"$work/cc1.log" 2>&1; then
    cat "$work/cc1.log"
    qmp_fail "building with qmp-config's flags"
fi
# The version macros, as a program sees them through qmp.h: Meridian's
# numbers (meridian_config.h, and qmp.h's QMP_MERIDIAN_*) say the version
# meridian.pc gives, and the numeric form orders releases.
cat >"$work/version.c" <<'PROG'
#include <qmp.h>
#include <stdio.h>
#if !defined(QMP_MERIDIAN) || QMP_MERIDIAN_VERSION_NUMERIC != MERIDIAN_VERSION_NUMERIC
#error "qmp.h does not carry Meridian's version"
#endif
#if MERIDIAN_VERSION_NUMERIC != MERIDIAN_VERSION_OF(MERIDIAN_VERSION_MAJOR, MERIDIAN_VERSION_MINOR, MERIDIAN_VERSION_RELEASE)
#error "MERIDIAN_VERSION_NUMERIC is not MERIDIAN_VERSION_OF its parts"
#endif
#if MERIDIAN_VERSION_OF(0, 1, 10) <= MERIDIAN_VERSION_OF(0, 1, 9) || MERIDIAN_VERSION_OF(1, 0, 0) <= MERIDIAN_VERSION_OF(0, 255, 255)
#error "MERIDIAN_VERSION_OF does not order versions"
#endif
int main(void)
{
    printf("%d.%d.%d %s %s\n", QMP_MERIDIAN_VERSION_MAJOR, QMP_MERIDIAN_VERSION_MINOR,
           QMP_MERIDIAN_VERSION_RELEASE, QMP_MERIDIAN_VERSION_STRING, MERIDIAN_VERSION_STRING);
    return 0;
}
PROG
# shellcheck disable=SC2086
if ! $CC $SANFLAGS $cflags "$work/version.c" -o "$work/prog_version" >"$work/cc0.log" 2>&1; then
    cat "$work/cc0.log"
    qmp_fail "building a program that reads Meridian's version macros through qmp.h"
else
    meridian_version=$(PKG_CONFIG_PATH="$dest$libdir/pkgconfig" pkg-config --modversion meridian) ||
        qmp_fail "pkg-config --modversion meridian failed"
    said=$("$work/prog_version")
    expected="${meridian_version%%[!0-9.]*} $meridian_version $meridian_version"
    if [ "$said" = "$expected" ]; then
        echo "ok: qmp.h and meridian_config.h say Meridian $said"
    else
        qmp_fail "version macros: expected '$expected' (meridian.pc), the program says '$said'"
    fi
fi

# pkg-config's flags have no run path: the linker finds libqmp's own
# dependency (libmeridian) by libqmp's run path, which names the real libdir,
# not the DESTDIR -- so, for the staged tree, the library path points there.
LD_LIBRARY_PATH="$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
pc_flags=$(PKG_CONFIG_PATH="$dest$libdir/pkgconfig" \
    pkg-config --define-variable=prefix="$dest$prefix" --cflags --libs qmp) ||
    qmp_fail "pkg-config --cflags --libs qmp failed"
echo "pkg-config: '$pc_flags'"
# shellcheck disable=SC2086
if ! $CC $SANFLAGS "$QMP_TEST_SRC/qmp_config_prog.c" $pc_flags \
    -o "$work/prog_pkg_config" >"$work/cc2.log" 2>&1; then
    cat "$work/cc2.log"
    qmp_fail "building with pkg-config's flags"
fi

# MPI and QMP in one program, built as the QMP documentation says with MPI's
# compiler wrapper, and with QMP_MPI defined as for QMP over MPI (it calls
# QMP_get_mpi_comm): Meridian's names must not meet Open MPI's.  It also asks
# Meridian's C API for the host map, so it links libmeridian by name.
mpicc=$(command -v mpicc || true)
if [ -n "$mpicc" ]; then
    # shellcheck disable=SC2086
    if ! "$mpicc" $SANFLAGS -DQMP_MPI $cflags "$QMP_TEST_SRC/qmp_mpi_prog.c" $ldflags $libs -lmeridian \
        -o "$work/prog_qmp_mpi" >"$work/cc3.log" 2>&1; then
        cat "$work/cc3.log"
        qmp_fail "building an MPI + QMP program with mpicc and qmp-config's flags"
    fi
else
    echo "SKIP: MPI + QMP in one program (no mpicc)"
fi

# The same program with QMP's MPI part, as qmp-config --mpi and pkg-config's
# qmp-mpi give it: QMP_get_mpi_comm then answers with a communicator.
if [ -n "$mpicc" ] && [ "${HAVE_QMP_MPI:-no}" = yes ]; then
    mpi_cflags=$("$qmp_config" --mpi --cflags) || qmp_fail "qmp-config --mpi --cflags failed"
    mpi_libs=$("$qmp_config" --mpi --libs) || qmp_fail "qmp-config --mpi --libs failed"
    echo "qmp-config --mpi: --cflags '$mpi_cflags' --libs '$mpi_libs'"
    case " $mpi_cflags " in
    *" -DQMP_MPI "*) ;;
    *) qmp_fail "qmp-config --mpi --cflags: expected -DQMP_MPI, got '$mpi_cflags'" ;;
    esac
    # shellcheck disable=SC2086
    if ! "$mpicc" $SANFLAGS -Wl,--as-needed $mpi_cflags "$QMP_TEST_SRC/qmp_mpi_prog.c" $ldflags \
        $mpi_libs -lmeridian -o "$work/prog_qmp_mpi_part" >"$work/cc4.log" 2>&1; then
        cat "$work/cc4.log"
        qmp_fail "building an MPI + QMP program with qmp-config --mpi's flags"
    fi
    mpi_pc_flags=$(PKG_CONFIG_PATH="$dest$libdir/pkgconfig" \
        pkg-config --define-variable=prefix="$dest$prefix" --cflags --libs qmp-mpi) ||
        qmp_fail "pkg-config --cflags --libs qmp-mpi failed"
    echo "pkg-config qmp-mpi: '$mpi_pc_flags'"
    # shellcheck disable=SC2086
    if ! "$mpicc" $SANFLAGS -Wl,--as-needed "$QMP_TEST_SRC/qmp_mpi_prog.c" $mpi_pc_flags -lmeridian \
        -o "$work/prog_qmp_mpi_pc" >"$work/cc5.log" 2>&1; then
        cat "$work/cc5.log"
        qmp_fail "building an MPI + QMP program with pkg-config's qmp-mpi flags"
    fi
else
    echo "SKIP: QMP's MPI part (no mpicc, or libqmp_mpi not built)"
    if [ "${HAVE_QMP_MPI:-no}" != yes ]; then
        # Asked of a build without it: refused, saying why.
        if "$qmp_config" --mpi --libs >"$work/mpi.out" 2>"$work/mpi.err"; then
            qmp_fail "qmp-config --mpi succeeded without QMP's MPI part"
        fi
        grep -q "QMP's MPI part (libqmp_mpi) is not installed" "$work/mpi.err" ||
            qmp_fail "qmp-config --mpi without QMP's MPI part: '$(cat "$work/mpi.err")'"
    fi
fi

# MPICH beside it (libqmp_mpich): the same program built with mpicc.mpich
# and qmp-config --mpi=mpich (and pkg-config's qmp-mpich), run under
# MPICH's mpiexec.  MPICH's MPI holds the launcher's PMI connection, so the
# job runs through the MPI bootstrap: by default, and held to it.
if [ "${HAVE_QMP_MPICH:-no}" = yes ] && [ -n "${MPIEXEC_HYDRA:-}" ]; then
    mpich_cflags=$("$qmp_config" --mpi=mpich --cflags) || qmp_fail "qmp-config --mpi=mpich --cflags failed"
    mpich_libs=$("$qmp_config" --mpi=mpich --libs) || qmp_fail "qmp-config --mpi=mpich --libs failed"
    echo "qmp-config --mpi=mpich: --cflags '$mpich_cflags' --libs '$mpich_libs'"
    case " $mpich_libs " in
    *" -lqmp_mpich "*) ;;
    *) qmp_fail "qmp-config --mpi=mpich --libs: expected -lqmp_mpich, got '$mpich_libs'" ;;
    esac
    # shellcheck disable=SC2086 # flags are lists of words
    if ! "$MPICC_MPICH" $SANFLAGS -Wl,--as-needed $mpich_cflags "$QMP_TEST_SRC/qmp_mpi_prog.c" \
        $ldflags $mpich_libs -lmeridian -o "$work/prog_qmp_mpich" >"$work/cc6.log" 2>&1; then
        cat "$work/cc6.log"
        qmp_fail "building an MPICH + QMP program with qmp-config --mpi=mpich's flags"
    fi
    mpich_pc_flags=$(PKG_CONFIG_PATH="$dest$libdir/pkgconfig" \
        pkg-config --define-variable=prefix="$dest$prefix" --cflags --libs qmp-mpich) ||
        qmp_fail "pkg-config --cflags --libs qmp-mpich failed"
    case " $mpich_pc_flags " in
    *" -lqmp_mpich "*) ;;
    *) qmp_fail "pkg-config qmp-mpich: expected -lqmp_mpich, got '$mpich_pc_flags'" ;;
    esac
    if [ -x "$work/prog_qmp_mpich" ]; then
        saved_asan=${ASAN_OPTIONS-}
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
        export ASAN_OPTIONS
        for np in 2 4; do
            qmp_setp mca_base_component_path "$dest$libdir/meridian"
            qmp_setp msg_base_verbose info
            if "$MPIEXEC_HYDRA" -n "$np" "$work/prog_qmp_mpich" mpi-part >"$QMP_OUT" 2>"$QMP_ERR" &&
                [ "$(grep -c '^ok: ' "$QMP_OUT")" -eq "$np" ] &&
                grep -q "processes on .*, through the mpi datastore" "$QMP_ERR"; then
                echo "ok: prog_qmp_mpich under mpiexec.hydra, np=$np (the MPI bootstrap by default)"
            else
                qmp_fail "prog_qmp_mpich under mpiexec.hydra, np=$np (expected $np ok lines and the mpi datastore):"
                qmp_show_output
            fi
            qmp_unsetp msg_base_verbose
            qmp_setp mca_base_datastore mpi
            if "$MPIEXEC_HYDRA" -n "$np" "$work/prog_qmp_mpich" mpi-part >"$QMP_OUT" 2>"$QMP_ERR" &&
                [ "$(grep -c '^ok: ' "$QMP_OUT")" -eq "$np" ]; then
                echo "ok: prog_qmp_mpich under mpiexec.hydra, np=$np, mca_base_datastore=mpi"
            else
                qmp_fail "prog_qmp_mpich under mpiexec.hydra, np=$np, mca_base_datastore=mpi:"
                qmp_show_output
            fi
            qmp_unsetp mca_base_datastore
            qmp_unsetp mca_base_component_path
        done
        ASAN_OPTIONS=$saved_asan
    fi
else
    echo "SKIP: QMP's MPI part for MPICH (libqmp_mpich not built, or no mpiexec.hydra)"
    if [ "${HAVE_QMP_MPICH:-no}" != yes ]; then
        if "$qmp_config" --mpi=mpich --libs >"$work/mpich.out" 2>"$work/mpich.err"; then
            qmp_fail "qmp-config --mpi=mpich succeeded without libqmp_mpich"
        fi
        grep -q "QMP's MPI part for MPICH (libqmp_mpich) is not installed" "$work/mpich.err" ||
            qmp_fail "qmp-config --mpi=mpich without libqmp_mpich: '$(cat "$work/mpich.err")'"
    fi
fi
# A name that is not an MPI's: refused, saying what it takes.
if "$qmp_config" --mpi=lam --libs >"$work/lam.out" 2>"$work/lam.err"; then
    qmp_fail "qmp-config --mpi=lam succeeded"
fi
grep -q -- "--mpi= names MPICH (--mpi=mpich) or the default MPI (--mpi), found '--mpi=lam'" "$work/lam.err" ||
    qmp_fail "qmp-config --mpi=lam: '$(cat "$work/lam.err")'"

# Run with the installed components (not the build tree's).
qmp_setp mca_base_component_path "$dest$libdir/meridian"
if qmp_have_mpirun; then
    QMP_MPIRUN_ARGS="-x LD_LIBRARY_PATH"
fi
for program in prog_qmp_config prog_pkg_config prog_qmp_mpi prog_qmp_mpi_part prog_qmp_mpi_pc; do
    [ -x "$work/$program" ] || continue
    args=
    case $program in
    prog_qmp_mpi_part | prog_qmp_mpi_pc) args=mpi-part ;;
    esac
    case $program in
    prog_qmp_mpi*)
        # In a sanitizer build, LeakSanitizer would report Open MPI 4.1's own
        # allocations left at MPI_Finalize, many from components it has
        # already unloaded (no module name to suppress them by); Meridian's
        # leaks are checked by every other QMP test.
        saved_asan=${ASAN_OPTIONS-}
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
        export ASAN_OPTIONS
        ;;
    esac
    # shellcheck disable=SC2086 # args: zero or one word
    qmp_run "$program alone" 0 "$work/$program" $args
    # shellcheck disable=SC2086
    qmp_run "$program, np=2" 2 "$work/$program" $args
    case $program in
    prog_qmp_mpi*) ASAN_OPTIONS=$saved_asan ;;
    esac
done
exit $qmp_status
