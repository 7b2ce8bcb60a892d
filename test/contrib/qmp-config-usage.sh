#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# qmp-config's command line: a mistake in it is exit status 2 with one
# message on standard error that says what was wrong, and nothing on
# standard output, wherever in the command line the mistake stands.
# shellcheck disable=SC2154 # top_builddir comes from the environment (Makefile.am)

: "${top_builddir:?run me from make check}"

qmp_config=$top_builddir/qmp-config
if [ ! -x "$qmp_config" ]; then
    echo "SKIP: qmp-config is not built in this configuration"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-qmp-config.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "FAIL: qmp-config $args: $*"
    failures=$((failures + 1))
}

# run ARG...: run qmp-config; sets status, fills $work/out and $work/err.
run() {
    args="$*"
    status=0
    "$qmp_config" "$@" >"$work/out" 2>"$work/err" || status=$?
}

# usage_error TEXT: the last run was a usage error with this message.
usage_error() {
    [ "$status" -eq 2 ] || fail "exit status $status, expected 2"
    [ ! -s "$work/out" ] || fail "unexpected standard output: $(head -n 3 "$work/out")"
    printf 'qmp-config: error: %s (see qmp-config --help)\n' "$1" >"$work/expected"
    cmp -s "$work/expected" "$work/err" ||
        fail "standard error is '$(cat "$work/err")', expected '$(cat "$work/expected")'"
}

run
usage_error 'no option given: expected one or more options such as --cflags or --libs'

run --bogus
usage_error "unknown option '--bogus'"

run -x --cflags
usage_error "unknown option '-x'"

# Judged before anything is printed: --version's answer does not come out.
run --version --frobnicate
usage_error "unknown option '--frobnicate'"

run --prefix= --cflags
usage_error "--prefix= needs a directory after '=', found nothing"

run --libs --exec-prefix=
usage_error "--exec-prefix= needs a directory after '=', found nothing"

run --cflags=yes
usage_error "--cflags takes no value, found '--cflags=yes'"

run --cflags extra
usage_error "unexpected argument 'extra': qmp-config takes options only"

# What works still works.
run --help
[ "$status" -eq 0 ] || fail "exit status $status, expected 0"
grep -q '^Usage: qmp-config \[OPTIONS\]$' "$work/out" || fail "no usage line in --help"
grep -q '^Exit status: 0 on success; 1 when --static is asked and no static libqmp was' "$work/out" ||
    fail "--help does not say the exit statuses"

run --version
[ "$status" -eq 0 ] || fail "exit status $status, expected 0"
grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' "$work/out" || fail "--version printed '$(cat "$work/out")'"

run --prefix=/opt/elsewhere --prefix
[ "$status" -eq 0 ] || fail "exit status $status, expected 0: $(cat "$work/err")"
grep -qx '/opt/elsewhere' "$work/out" || fail "printed '$(cat "$work/out")'"

# What QMP's own script answers for a build that runs across processes.
run --comms
[ "$status" -eq 0 ] && [ "$(cat "$work/out")" = MPI ] ||
    fail "--comms printed '$(cat "$work/out")' (exit $status), expected MPI"

# --static names a static libqmp only when one was built (libtool knows).
static_built=$("$top_builddir/libtool" --config | sed -n 's/^build_old_libs=//p')
run --static --libs
if [ "$static_built" = yes ]; then
    [ "$status" -eq 0 ] || fail "exit status $status with a static libqmp built: $(cat "$work/err")"
    grep -q -- '-lqmp -lmeridian' "$work/out" || fail "--static --libs printed '$(cat "$work/out")'"
else
    [ "$status" -eq 1 ] || fail "exit status $status, expected 1 (no static libqmp was built)"
    [ ! -s "$work/out" ] || fail "printed flags for a static libqmp that does not exist: $(cat "$work/out")"
    grep -qF "qmp-config: error: --static: no static libqmp is installed (this QMP was configured without --enable-static)" \
        "$work/err" || fail "standard error is '$(cat "$work/err")'"
fi

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "PASS: qmp-config's command-line mistakes exit 2 with one message; --comms and --static answer as QMP's do"
