# Sourced by the meridian_carto tests.
#
# Gives every test a scratch directory, a HOME inside it, and an environment
# in which only the test's own settings count: no param files, no override
# file, and a component path holding just the build tree's carto components
# (in a --disable-dlopen build they are in libmeridian and the path finds
# nothing, which is fine).
#
#   run_carto ARG...          run meridian_carto; sets $status, fills $out and $err
#   expect_status N           the last run exited with N
#   expect_out                standard output is exactly standard input (a here-document)
#   expect_err                standard error is exactly standard input
#   expect_out_line TEXT      standard output has exactly this line
#   expect_err_line TEXT      standard error has exactly this line
#   expect_out_empty          nothing on standard output
#   expect_err_empty          nothing on standard error
#   expect_usage_error TEXT   exit status 2, nothing on standard output, and
#                             standard error is the one line "meridian: error: TEXT"
#   need_carto_file           skip the test (77) when carto_file is not built
#   finish                    exit 1 if any check failed, 0 otherwise

: "${MERIDIAN_CARTO:?run me from make check}"
: "${MCA_ENV_PREFIX:?run me from make check}"
: "${CARTO_EXAMPLES:?run me from make check}"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/meridian-carto-test.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
out=$scratch/stdout
err=$scratch/stderr
status=0
last_command=
runs=0
dumped=0

HOME=$scratch/home
mkdir -p "$HOME"
export HOME

# Settings the caller's environment makes must not leak in.
for variable in $(env | sed -n "s/^\(${MCA_ENV_PREFIX}[A-Za-z0-9_]*\)=.*/\1/p"); do
    unset "$variable"
done
P=$MCA_ENV_PREFIX
export "${P}mca_base_param_files=none"
export "${P}mca_base_override_param_file=none"
export "${P}mca_base_component_path=$BUILD_COMPONENT_PATH"

figure3=$CARTO_EXAMPLES/figure3.carto
ompi13=$CARTO_EXAMPLES/ompi13.carto

run_carto()
{
    last_command="meridian_carto $*"
    runs=$((runs + 1))
    "$MERIDIAN_CARTO" "$@" >"$out" 2>"$err"
    status=$?
}

# Failures are counted in a file: the checks that read a here-document run
# at the end of a pipeline, in a subshell of their own.
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

expect_out_line()
{
    grep -Fqx -e "$1" "$out" || fail "no output line: $1"
}

expect_err_line()
{
    grep -Fqx -e "$1" "$err" || fail "no error line: $1"
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

need_carto_file()
{
    if [ "$CARTO_FILE_BUILT" != yes ]; then
        echo "SKIP: the carto_file component is not built"
        exit 77
    fi
}

finish()
{
    if [ -s "$scratch/failures" ]; then
        echo "$(wc -l <"$scratch/failures") check(s) failed"
        exit 1
    fi
    echo "$runs runs of meridian_carto checked"
    exit 0
}
