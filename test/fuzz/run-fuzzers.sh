#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets of test/fuzz with clang++ (straight from the
# source tree: no configure, no make) and run each for a while; fail when one
# finds a crash, a sanitizer error, a hang or a broken promise.
#
#   test/fuzz/run-fuzzers.sh [TARGET...]     default: every test/fuzz/*_fuzz.cc
#
# Environment:
#   FUZZ_SECONDS    how long each target runs (default 30)
#   FUZZ_WORK_DIR   binaries, grown corpus, logs, crash inputs
#                   (default ${TMPDIR:-/tmp}/meridian-fuzz)
#   FUZZ_CXX        the clang++ to use (default: clang++, else clang++-14)
#   FUZZ_JOBS       how many targets build and run at once (default: the
#                   number of cores)
#
# A target NAME_fuzz.cc names the sources it needs on a "// fuzz-sources:"
# line (paths from the top of the tree), the libraries it links on a
# "// fuzz-libs:" line (linker options), and may have a seed corpus in
# corpus/NAME/ and a dictionary NAME.dict.  The seeds are only read: what the
# fuzzer adds goes to $FUZZ_WORK_DIR/corpus/NAME.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${FUZZ_SECONDS:-30}
work=${FUZZ_WORK_DIR:-${TMPDIR:-/tmp}/meridian-fuzz}

case $seconds in
'' | *[!0-9]*)
    echo "run-fuzzers: FUZZ_SECONDS must be a whole number of seconds, not '$seconds'" >&2
    exit 2
    ;;
esac

cxx=${FUZZ_CXX:-}
if [ -z "$cxx" ]; then
    for candidate in clang++ clang++-14; do
        if command -v "$candidate" >/dev/null 2>&1; then
            cxx=$candidate
            break
        fi
    done
fi
if [ -z "$cxx" ]; then
    echo "run-fuzzers: no clang++ found (install clang and libclang-rt-14-dev, see contrib/scripts/deps.sh)" >&2
    exit 1
fi

mkdir -p "$work/include/meridian"
# The sources include <meridian/...> (include/meridian links to the tree);
# <meridian/meridian_config.h> is configure's, here with its defaults.
sed -e 's/@PACKAGE_VERSION@/fuzz/' -e 's/@MERIDIAN_SYMBOL_PREFIX@/meridian_/' \
    -e 's/@MERIDIAN_SYMBOL_PREFIX_IS_DEFAULT@/1/' -e 's/@MERIDIAN_MCA_ENV_PREFIX@/MERIDIAN_MCA_/' \
    "$top/include/meridian/meridian_config.h.in" >"$work/include/meridian/meridian_config.h"
flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all -I"$top" -I"$top/include" -I"$work/include")
# libFuzzer comes with the compiler's runtime package; say so plainly when it is missing.
probe="$work/probe.cc"
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
    'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *, std::size_t) { return 0; }' >"$probe"
if ! "$cxx" "${flags[@]}" "$probe" -o "$work/probe" >"$work/probe.log" 2>&1; then
    cat "$work/probe.log" >&2
    echo "run-fuzzers: $cxx cannot build a libFuzzer program (is libclang-rt-14-dev installed?)" >&2
    exit 1
fi

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for source in "$here"/*_fuzz.cc; do
        # Only the files that are fuzz targets.
        grep -q LLVMFuzzerTestOneInput "$source" || continue
        name=$(basename "$source" .cc)
        targets+=("${name%_fuzz}")
    done
fi

# Readable stacks when a symbolizer is around.
for symbolizer in llvm-symbolizer llvm-symbolizer-14; do
    if command -v "$symbolizer" >/dev/null 2>&1; then
        export ASAN_SYMBOLIZER_PATH
        ASAN_SYMBOLIZER_PATH=$(command -v "$symbolizer")
        break
    fi
done
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# fuzz_one TARGET: build TARGET and fuzz it; its lines go to stdout, the
# reasons for a failure to stderr; returns non-zero when it failed.
fuzz_one() {
    local target=$1
    local source="$here/${target}_fuzz.cc"
    local sources=() libs=() file
    for file in $(sed -n 's|^// fuzz-sources:||p' "$source"); do
        sources+=("$top/$file")
    done
    # shellcheck disable=SC2207 # words: linker options
    libs=($(sed -n 's|^// fuzz-libs:||p' "$source"))
    local binary="$work/${target}_fuzz"
    echo "== $target: building with $cxx"
    "$cxx" "${flags[@]}" "$source" "${sources[@]}" -o "$binary" ${libs[@]+"${libs[@]}"} || return 1

    local grown="$work/corpus/$target"
    local artifacts="$work/artifacts/$target"
    mkdir -p "$grown" "$artifacts"
    local args=(-max_total_time="$seconds" -timeout=10 -max_len=16384 -print_final_stats=1
        -artifact_prefix="$artifacts/")
    [ -f "$here/$target.dict" ] && args+=(-dict="$here/$target.dict")
    local seeds=("$grown")
    [ -d "$here/corpus/$target" ] && seeds+=("$here/corpus/$target")

    local log="$work/$target.log"
    echo "== $target: fuzzing for ${seconds}s (log: $log)"
    local status=0
    "$binary" "${args[@]}" "${seeds[@]}" >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        tail -n 60 "$log" >&2
        echo "== $target: FAILED (exit $status); the input is in $artifacts/" >&2
        echo "   reproduce: $binary $artifacts/<crash-file>" >&2
        return 1
    fi
    local runs rss final cov features corpus
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
    cov=$(echo "$final" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    features=$(echo "$final" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corpus=$(echo "$final" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    echo "== $target: ok: ${runs:-?} runs in ${seconds}s, coverage ${cov:-?} edges," \
        "${features:-?} features, corpus ${corpus:-?} inputs, peak RSS ${rss:-?} MB"
}

# The targets run FUZZ_JOBS at a time (default: one per core), each printed
# whole when it ends; a target's build and its run are single-threaded.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0)
    echo "run-fuzzers: FUZZ_JOBS must be a positive number, not '$jobs'" >&2
    exit 2
    ;;
esac
for target in "${targets[@]}"; do
    if [ ! -f "$here/${target}_fuzz.cc" ]; then
        echo "run-fuzzers: no target $target ($here/${target}_fuzz.cc)" >&2
        exit 2
    fi
done
mkdir -p "$work/out"
failed=0
# finish PID TARGET: wait for the target's lane and print what it said.
finish() {
    local status=0
    wait "$1" || status=$?
    cat "$work/out/$2"
    [ "$status" -eq 0 ] || failed=1
}
pids=()
names=()
for target in "${targets[@]}"; do
    if [ "${#pids[@]}" -ge "$jobs" ]; then
        finish "${pids[0]}" "${names[0]}"
        pids=("${pids[@]:1}")
        names=("${names[@]:1}")
    fi
    fuzz_one "$target" >"$work/out/$target" 2>&1 &
    pids+=("$!")
    names+=("$target")
done
for i in "${!pids[@]}"; do
    finish "${pids[$i]}" "${names[$i]}"
done
exit "$failed"
