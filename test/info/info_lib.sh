# Sourced by the meridian_info tests.
#
# Gives every test a scratch directory, a HOME inside it, an environment in
# which only the test's own settings count (no param files, no override file,
# a component path with nothing but what the test puts there), and checks on
# exact lines of meridian_info's output.
#
#   run_info ARG...          run meridian_info; sets $status, fills $out and $err
#   expect_status N          the last run exited with N
#   expect_line TEXT         standard output has exactly this line
#   expect_no_line TEXT      ... and not this one
#   expect_no_match PATTERN  no line of standard output matches (grep -E)
#   expect_match PATTERN     some line of standard output matches (grep -E)
#   expect_err_line TEXT     standard error has exactly this line
#   expect_err_match PATTERN some line of standard error matches (grep -E)
#   expect_err_empty         standard error is empty
#   finish                   exit 1 if any check failed, 0 otherwise

: "${MERIDIAN_INFO:?run me from make check}"
: "${MCA_ENV_PREFIX:?run me from make check}"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/meridian-info-test.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
out=$scratch/stdout
err=$scratch/stderr
status=0
failures=0
last_command=
runs=0
dumped=0

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
export "${P}mca_base_component_path=$scratch/components"

run_info()
{
    last_command="meridian_info $*"
    runs=$((runs + 1))
    "$MERIDIAN_INFO" "$@" >"$out" 2>"$err"
    status=$?
}

fail()
{
    echo "FAIL: $last_command: $*"
    failures=$((failures + 1))
    # The run's output once, next to its first failure.
    if [ "$dumped" != "$runs" ]; then
        dumped=$runs
        sed 's/^/  stderr: /' "$err"
        head -n 60 "$out" | sed 's/^/  stdout: /'
    fi
}

expect_status()
{
    [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"
}

expect_line()
{
    grep -Fqx -e "$1" "$out" || fail "no output line: $1"
}

expect_no_line()
{
    if grep -Fqx -e "$1" "$out"; then
        fail "unexpected output line: $1"
    fi
}

expect_no_match()
{
    if grep -Eq -e "$1" "$out"; then
        fail "an output line matches $1: $(grep -E -e "$1" "$out" | head -n 1)"
    fi
}

expect_match()
{
    grep -Eq -e "$1" "$out" || fail "no output line matches $1"
}

expect_err_match()
{
    grep -Eq -e "$1" "$err" || fail "no error line matches $1"
}

expect_err_line()
{
    grep -Fqx -e "$1" "$err" || fail "no error line: $1"
}

expect_err_empty()
{
    [ ! -s "$err" ] || fail "unexpected standard error: $(head -n 3 "$err")"
}

finish()
{
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    exit 0
}
