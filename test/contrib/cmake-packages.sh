#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Meridian's CMake packages as CMake projects use them, against a staged
# `make install` (a root other than the configured prefix: the packages must
# find everything from their own place) and again after that tree is moved:
#   - find_package(QMP 2.5) and QMP::qmp build the QMP example
#     (contrib/examples/CMakeLists.txt), which runs; QMP_VERSION is qmp.pc's,
#     QMP_MPI is ON when QMP's MPI part (libqmp_mpi) is installed and OFF
#     otherwise or with QMP_NO_MPI; with it, a CMake program on QMP::qmp and
#     MPI::MPI_C gets an MPI communicator from QMP_get_mpi_comm;
#     QMP_MPI_IMPLEMENTATION=mpich links the part built for MPICH where it
#     is installed, and another name is refused, saying what it takes; a
#     request for QMP 3.0 is refused naming this 2.x;
#   - find_package(Meridian) and meridian_add_component build the example
#     component (contrib/example-component/CMakeLists.txt), which meridian_info
#     lists and the carto framework selects;
#   - a C++ program that links Meridian::meridian gets C++20 from the target
#     and runs against the installed library.
# shellcheck source=test/contrib/stage.sh disable=SC2154 # stage.sh and Makefile.am set them
. "$srcdir/stage.sh"

command -v cmake >/dev/null 2>&1 || fail "cmake was not found (Debian: cmake; contrib/scripts/deps.sh installs it)"
qmp_version=$(sed -n 's/^Version: *//p' "$top_builddir/qmp.pc")
[ -n "$qmp_version" ] || fail "no Version in $top_builddir/qmp.pc"
[ -f "$root$libdir/cmake/QMP/QMPConfig.cmake" ] || fail "make install put no QMPConfig.cmake in $root$libdir/cmake/QMP"
[ -f "$root$libdir/cmake/Meridian/MeridianConfig.cmake" ] ||
    fail "make install put no MeridianConfig.cmake in $root$libdir/cmake/Meridian"

# cmake_project NAME SOURCE-DIR PREFIX [-DVAR=VALUE...]: configures and
# builds SOURCE-DIR in $stage/NAME against the installation under PREFIX;
# the configure output is in $stage/NAME.configure.log.  The compilers are
# configure's without their options (CXX is "g++ -std=c++20": the standard
# must come from the targets).  A sanitized
# libmeridian needs the sanitizer runtime loaded first: the programs link it.
cmake_project() {
    name=$1 source=$2 where=$3
    shift 3
    rm -rf "${stage:?}/$name"
    run_logged "$stage/$name.configure.log" cmake -S "$source" -B "$stage/$name" \
        -DCMAKE_PREFIX_PATH="$where" -DCMAKE_C_COMPILER="${CC%% *}" -DCMAKE_CXX_COMPILER="${CXX%% *}" \
        -DCMAKE_EXE_LINKER_FLAGS="$sanitizer_flags" "$@"
    run_logged "$stage/$name.build.log" cmake --build "$stage/$name"
}

# With QMP's MPI part, QMP::qmp carries it and a QMP program starts MPI:
# Open MPI 4.1 leaves allocations at MPI_Finalize (from components it has
# unloaded by then), which LeakSanitizer would report.
qmp_mpi=OFF
if [ -e "$root$libdir/libqmp_mpi.so" ]; then
    qmp_mpi=ON
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
fi

# check_qmp_example PREFIX: the QMP example built against PREFIX runs as one
# process (a job of one, its transports from PREFIX's components).
check_qmp_example() {
    where=$1
    cmake_project qmp-example "$top_srcdir/contrib/examples" "$where"
    expect_line "$stage/qmp-example.configure.log" \
        "-- QMP $qmp_version (Meridian $PACKAGE_VERSION), QMP_MPI $qmp_mpi"
    program=$stage/qmp-example/qmp_halo
    env "${P}mca_base_component_path=$where${pkglibdir#"$prefix"}" \
        "$program" --lattice 4x4x4x8 --iterations 3 >"$stage/qmp-example.out" 2>"$stage/qmp-example.err" ||
        fail "$program failed: $(cat "$stage/qmp-example.err")"
    grep -q '^qmp_halo: 1 node, lattice 4x4x4x8, node grid 1x1x1x1' "$stage/qmp-example.out" || {
        cat "$stage/qmp-example.out" >&2
        fail "$program did not report the 4x4x4x8 lattice on 1 node"
    }
}

installed=$root$prefix
check_qmp_example "$installed"

if [ "$qmp_mpi" = ON ]; then
    # QMP_NO_MPI: QMP::qmp without the MPI part.
    cmake_project qmp-example-nompi "$top_srcdir/contrib/examples" "$installed" -DQMP_NO_MPI=ON
    expect_line "$stage/qmp-example-nompi.configure.log" \
        "-- QMP $qmp_version (Meridian $PACKAGE_VERSION), QMP_MPI OFF"
    readelf -d "$stage/qmp-example-nompi/qmp_halo" | grep -q 'libqmp_mpi' &&
        fail "with QMP_NO_MPI the example still links libqmp_mpi"
    # A program on MPI and QMP::qmp, as QUDA is built: the MPI communicator
    # under QMP's default one agrees with QMP (qmp_mpi_prog.c, "mpi-part").
    mkdir -p "$stage/qmp-mpi"
    cp "$top_srcdir/test/qmp/qmp_mpi_prog.c" "$stage/qmp-mpi/"
    cat >"$stage/qmp-mpi/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(qmp_mpi_prog LANGUAGES C CXX)
find_package(MPI REQUIRED COMPONENTS C)
find_package(QMP REQUIRED)
find_package(Meridian REQUIRED)
if(NOT QMP_MPI)
    message(FATAL_ERROR "QMP_MPI is OFF")
endif()
add_executable(qmp_mpi_prog qmp_mpi_prog.c)
target_link_libraries(qmp_mpi_prog PRIVATE QMP::qmp Meridian::meridian MPI::MPI_C)
CMAKE
    cmake_project qmp-mpi-build "$stage/qmp-mpi" "$installed" \
        -DCMAKE_EXE_LINKER_FLAGS="$sanitizer_flags -Wl,--as-needed"
    env "${P}mca_base_component_path=$installed${pkglibdir#"$prefix"}" \
        "$stage/qmp-mpi-build/qmp_mpi_prog" mpi-part >"$stage/qmp-mpi.out" 2>"$stage/qmp-mpi.err" ||
        fail "the CMake-built MPI + QMP program failed: $(cat "$stage/qmp-mpi.err")"
    grep -q '^ok: rank 0 of 1' "$stage/qmp-mpi.out" ||
        fail "the CMake-built MPI + QMP program did not say ok: $(cat "$stage/qmp-mpi.out" "$stage/qmp-mpi.err")"
fi

# QMP_MPI_IMPLEMENTATION=mpich: QMP::qmp carries the part built for MPICH
# where it is installed; a name that is not an MPI's is refused, saying so.
if [ -e "$root$libdir/libqmp_mpich.so" ]; then
    cmake_project qmp-example-mpich "$top_srcdir/contrib/examples" "$installed" \
        -DQMP_MPI_IMPLEMENTATION=mpich
    readelf -d "$stage/qmp-example-mpich/qmp_halo" | grep -q 'libqmp_mpich' ||
        fail "with QMP_MPI_IMPLEMENTATION=mpich the example does not link libqmp_mpich"
fi
# refused NAME LINES PATTERN WHAT: a project of the CMake LINES (after its
# project()) must fail to configure against the installation, with a log
# that matches PATTERN (grep -E); WHAT says what was asked.
refused() {
    mkdir -p "$stage/$1"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(%s LANGUAGES C)\n%s\n' "$1" "$2" \
        >"$stage/$1/CMakeLists.txt"
    if cmake -S "$stage/$1" -B "$stage/$1/build" -DCMAKE_PREFIX_PATH="$installed" \
        >"$stage/$1.log" 2>&1; then
        fail "$4 was accepted"
    fi
    grep -Eq "$3" "$stage/$1.log" || {
        cat "$stage/$1.log" >&2
        fail "$4 was refused without the expected words ($3)"
    }
}
refused qmp-lam 'set(QMP_MPI_IMPLEMENTATION lam)
find_package(QMP REQUIRED)' 'QMP_MPI_IMPLEMENTATION is "lam": expected mpich, or default' \
    "find_package(QMP) with QMP_MPI_IMPLEMENTATION=lam"

# A version this installation is not: refused, with the version it is.
refused qmp3 'find_package(QMP 3.0 REQUIRED)' "version: $qmp_version" \
    "find_package(QMP 3.0) of QMP $qmp_version"

# The example component, built with meridian_add_component.
cmake_project component "$top_srcdir/contrib/example-component" "$installed"
expect_line "$stage/component.configure.log" \
    "-- Meridian $PACKAGE_VERSION: components in $installed${pkglibdir#"$prefix"}"
so=$stage/component/mca_carto_example.so
[ -f "$so" ] || fail "meridian_add_component made no $so"
nm -D --defined-only "$so" | grep -q ' mca_carto_example_component$' ||
    fail "$so does not export mca_carto_example_component"
exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDB]$/ { print $3 }' | grep -v '^_' | sort | tr '\n' ' ')
[ "$exported" = "mca_carto_example_component " ] ||
    fail "$so exports more than its component struct: $exported"
driver=$stage/select_carto
build_program "$driver" "$srcdir/select_carto.c"
export "${P}mca_base_component_path=$stage/component"
check_example "$so"

# A C++ program on Meridian::meridian: C++20 comes with the target.
mkdir -p "$stage/cxx"
cat >"$stage/cxx/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(meridian_cxx LANGUAGES CXX)
find_package(Meridian REQUIRED)
add_executable(meridian_cxx main.cc)
target_link_libraries(meridian_cxx PRIVATE Meridian::meridian)
CMAKE
cat >"$stage/cxx/main.cc" <<'CXX'
#include <cstdio>
#include <meridian/meridian.hpp>
int main()
{
    std::printf("%s\n", meridian_version());
    return 0;
}
CXX
cmake_project cxx-build "$stage/cxx" "$installed"
found=$("$stage/cxx-build/meridian_cxx") || fail "$stage/cxx-build/meridian_cxx failed"
[ "$found" = "$PACKAGE_VERSION" ] || fail "the C++ program says version $found, expected $PACKAGE_VERSION"

# The installation moved once more: found from the new place, and the
# program runs with nothing pointing at the old one.
moved=$stage/moved
mv "$installed" "$moved"
unset LD_LIBRARY_PATH
check_qmp_example "$moved"
echo "PASS: find_package(QMP $qmp_version) and find_package(Meridian $PACKAGE_VERSION) build and run, installed and moved"
