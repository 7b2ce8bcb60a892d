# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests of Meridian's command-line tools, through each
# tool's own library (test/info/info_lib.sh, test/carto_tool/carto_tool_lib.sh,
# test/netmap_tool/netmap_tool_lib.sh), which sets what is particular to it.
#
# Gives every test a scratch directory, a HOME inside it, and an environment
# in which only the test's own settings count: none of the caller's
# ${MCA_ENV_PREFIX}* variables, no param files, no override file, and the
# component path the tool's library chose (TOOL_COMPONENT_PATH; default: an
# empty $scratch/components the test may fill).
#
#   run_tool PROGRAM ARG...   run a program; sets $status, fills $out and $err
#   expect_status N           the last run exited with N
#   expect_out / expect_err   standard output / error is exactly standard input
#   expect_line TEXT          standard output has exactly this line (also expect_out_line)
#   expect_no_line TEXT       ... and not this one
#   expect_match PATTERN      some line of standard output matches (grep -E)
#   expect_no_match PATTERN   no line of standard output matches
#   expect_err_line TEXT      standard error has exactly this line
#   expect_err_match PATTERN  some line of standard error matches
#   expect_out_empty / expect_err_empty
#   expect_usage_error TEXT   exit status 2, nothing on standard output, and
#                             standard error is the one line "meridian: error: TEXT"
#   fail MESSAGE              count a failed check, showing the run's output once
#   finish                    exit 1 if any check failed, 0 otherwise

: "${MCA_ENV_PREFIX:?run me from make check}"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/meridian-tool-test.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
out=$scratch/stdout
err=$scratch/stderr
status=0
last_command=
runs=0
dumped=0
: >"$out"
: >"$err"

HOME=$scratch/home
mkdir -p "$HOME" "$scratch/components"
export HOME

# Settings the caller's environment makes must not leak in.
for variable in $(env | sed -n "s/^\(${MCA_ENV_PREFIX}[A-Za-z0-9_]*\)=.*/\1/p"); do
    unset "$variable"
done
P=$MCA_ENV_PREFIX
export "${P}mca_base_param_files=none"
export "${P}mca_base_override_param_file=none"
export "${P}mca_base_component_path=${TOOL_COMPONENT_PATH:-$scratch/components}"

run_tool()
{
    program=$1
    shift
    last_command="$(basename "$program") $*"
    runs=$((runs + 1))
    "$program" "$@" >"$out" 2>"$err"
    status=$?
}

# Failures are counted in a file: checks that read a here-document may run at
# the end of a pipeline, in a subshell of their own.
fail()
{
    echo "FAIL: $last_command: $*"
    echo "$last_command: $*" >>"$scratch/failures"
    # The run's output once, next to its first failure.
    if [ "$dumped" != "$runs" ]; then
        dumped=$runs
        echo "  exit status: $status"
        sed 's/^/  stderr: /' "$err"
        head -n 60 "$out" | sed 's/^/  stdout: /'
    fi
}

expect_status()
{
    [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"
}

# Compare a file with standard input, showing the difference.
same_as_input()
{
    cat >"$scratch/expected"
    if ! diff -u "$scratch/expected" "$1" >"$scratch/diff"; then
        fail "$2 differs from what was expected:"
        sed 's/^/  /' "$scratch/diff"
    fi
}

expect_out() { same_as_input "$out" "standard output"; }
expect_err() { same_as_input "$err" "standard error"; }

expect_line()
{
    grep -Fqx -e "$1" "$out" || fail "no output line: $1"
}
expect_out_line() { expect_line "$@"; }

expect_no_line()
{
    if grep -Fqx -e "$1" "$out"; then
        fail "unexpected output line: $1"
    fi
}

expect_match()
{
    grep -Eq -e "$1" "$out" || fail "no output line matches $1"
}

expect_no_match()
{
    if grep -Eq -e "$1" "$out"; then
        fail "an output line matches $1: $(grep -E -e "$1" "$out" | head -n 1)"
    fi
}

expect_err_line()
{
    grep -Fqx -e "$1" "$err" || fail "no error line: $1"
}

expect_err_match()
{
    grep -Eq -e "$1" "$err" || fail "no error line matches $1"
}

expect_out_empty()
{
    [ ! -s "$out" ] || fail "unexpected standard output: $(head -n 3 "$out")"
}

expect_err_empty()
{
    [ ! -s "$err" ] || fail "unexpected standard error: $(head -n 3 "$err")"
}

expect_usage_error()
{
    expect_status 2
    expect_out_empty
    printf 'meridian: error: %s\n' "$1" | expect_err
}

finish()
{
    if [ -s "$scratch/failures" ]; then
        echo "$(wc -l <"$scratch/failures") check(s) failed"
        exit 1
    fi
    echo "$runs runs checked"
    exit 0
}
