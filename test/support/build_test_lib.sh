# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=sh
# Sourced by the shell tests that build and install trees (test/embed/embed.sh,
# test/embed/external.sh, test/contrib/stage.sh):
#
#   fail MESSAGE            say "FAIL: MESSAGE" on standard error and exit 1
#   run_logged LOG CMD...   run CMD with its output in the file LOG; when it
#                           fails, show the log's last 40 lines and fail.
#                           With RUN_LOGGED_TIMES=yes, say how long each
#                           step took ("NAME: N s", NAME from LOG).

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

run_logged() {
    run_logged_log=$1
    shift
    run_logged_start=$(date +%s)
    if ! "$@" >"$run_logged_log" 2>&1; then
        tail -n 40 "$run_logged_log" >&2
        fail "$* (log: $run_logged_log)"
    fi
    if [ "${RUN_LOGGED_TIMES:-no}" = yes ]; then
        echo "$(basename "$run_logged_log" .log): $(($(date +%s) - run_logged_start)) s"
    fi
}
