#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# -c/--config: how this Meridian was built (configure's command line, the
# compilers and flags, its choices, the dependencies and components as its
# summary gave them, what the process runs with), in the three formats, and
# nothing else with it.
. "$TEST_LIB"

: "${TOP_BUILDDIR:?run me from make check}"
configure_line=$("$TOP_BUILDDIR/config.status" --config)

run_info --config --parsable
expect_status 0
expect_err_empty
expect_line "config:build:version:$MERIDIAN_VERSION"
# The same words as config.status --config gives (each quoted as configure
# quoted it).
words() { eval "set -- $1" && printf '<%s>' "$@"; }
said=$(sed -n 's/^config:build:configure command line://p' "$out")
[ "$(words "$said")" = "$(words "$configure_line")" ] ||
    fail "configure command line: '$said', config.status --config says '$configure_line'"
expect_line "config:build:MCA environment prefix:$MCA_ENV_PREFIX"
expect_match '^config:build:C compiler:.+'
expect_match '^config:build:C compiler version:.+'
expect_match '^config:build:C\+\+ compiler:.+'
expect_match '^config:build:CXXFLAGS:'
expect_match '^config:dependency:Boost\.Program_options:yes'
expect_match '^config:dependency:Boost headers:[0-9]+\.[0-9]+'
# Every component configure knows, each with its verdict.
expect_match '^config:component:carto/file \(carto_file\):yes'
expect_match '^config:component:pnet/tcp \(pnet_tcp\):yes'
# Nothing but the build.
expect_no_match '^mca:'
expect_no_match '^path:'

# The text form: a header per section, aligned lines.
run_info -c
expect_status 0
expect_err_empty
expect_line "How it was configured:"
expect_line "Dependencies (as configure found them):"
expect_line "Components (as configure decided):"
[ "$(grep -c '^Dependencies' "$out")" -eq 1 ] || fail "the dependencies are not in one section"
expect_match "^  version +$MERIDIAN_VERSION\$"
expect_match '^  configure command line +'
expect_no_match '^Framework'

# JSON: {"config": {SECTION: {LABEL: TEXT}}}.
run_info --config --json
expect_status 0
expect_err_empty
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
config = json.load(open(sys.argv[1]))["config"]
assert config["build"]["version"] == sys.argv[2], config["build"]["version"]
assert "carto/file (carto_file)" in config["component"]
' "$out" "$MERIDIAN_VERSION" || fail "--config --json is not the expected document"
else
    expect_match '"config"'
fi

# It shows the build and nothing else: the options that choose what else to
# show are refused.
run_info --config --param carto all
expect_usage_error "--config shows how Meridian was built only: it cannot be combined with --param (see meridian_info --help)"
run_info -c --all
expect_usage_error "--config shows how Meridian was built only: it cannot be combined with --all (see meridian_info --help)"
run_info --config --path prefix
expect_usage_error "--config shows how Meridian was built only: it cannot be combined with --path (see meridian_info --help)"
finish
