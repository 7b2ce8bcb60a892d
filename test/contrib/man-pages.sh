#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The manual pages cannot go stale: every option a tool's --help lists must
# be a tagged item of the OPTIONS section of its page, and every page has
# the sections a user looks for.  A page with an option taken out must fail
# the same check, so the check itself is known to bite.
# shellcheck disable=SC2154 # lower-case names come from the environment (Makefile.am)

: "${top_builddir:?run me from make check}"
: "${top_srcdir:?run me from make check}"

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-man.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# No param file of this machine may change what a tool says.
export "${configured_env_prefix}mca_base_param_files=none"

# help_options PROGRAM: the options its --help lists, one a line.  An option
# line starts with '-' after blanks; its names end where two blanks begin the
# description (Boost: "-l [ --level ] N", the script: "--prefix[=DIR]").
help_options() {
    "$1" --help | awk '
        /^[ \t]+-/ {
            line = $0
            sub(/^[ \t]+/, "", line)
            end = index(line, "  ")
            if (end > 0) line = substr(line, 1, end - 1)
            n = split(line, words, /[] \t,[=]+/)
            for (i = 1; i <= n; i++) if (words[i] ~ /^--?[A-Za-z]/) print words[i]
        }' | sort -u
}

# page_option_tags PAGE: the words of the OPTIONS section's item tags (the
# line after each .TP), with roff's font changes and escapes taken out.
page_option_tags() {
    awk '
        /^\.SH/ { in_options = ($0 ~ /^\.SH "?OPTIONS"?$/); next }
        in_options && tag { print; tag = 0; next }
        in_options && /^\.TP/ { tag = 1 }' "$1" |
        sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/"//g' -e 's/^\.[A-Z]* //'
}

# missing_options HELP_LIST PAGE: the options of HELP_LIST that no OPTIONS
# tag of PAGE names.
missing_options() {
    page_option_tags "$2" >"$work/tags"
    while read -r option; do
        grep -Eq -e "(^|[^A-Za-z0-9-])$option([^A-Za-z0-9-]|\$)" "$work/tags" || echo "$option"
    done <"$1"
}

checked=0
for entry in \
    "meridian_info mca/tools/meridian_info/meridian_info.1" \
    "meridian_carto mca/tools/meridian_carto/meridian_carto.1" \
    "meridian_netmap mca/tools/meridian_netmap/meridian_netmap.1" \
    "qmp-config contrib/qmp/qmp-config.1"; do
    tool=${entry%% *}
    page=$top_srcdir/${entry#* }
    program=$top_builddir/$tool
    if [ ! -x "$program" ]; then
        echo "SKIP: $tool is not built in this configuration"
        continue
    fi
    [ -f "$page" ] || {
        fail "$tool has no manual page at $page"
        continue
    }
    checked=$((checked + 1))

    help_options "$program" >"$work/$tool.options"
    count=$(wc -l <"$work/$tool.options")
    # Fewer means the --help layout changed and this reading of it with it.
    [ "$count" -ge 5 ] || fail "$tool --help: found only $count options ($(tr '\n' ' ' <"$work/$tool.options"))"

    for option in $(missing_options "$work/$tool.options" "$page"); do
        fail "$page: option $option of $tool --help is not an item of OPTIONS"
    done

    for section in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        grep -Eq "^\\.SH \"?$section\"?\$" "$page" || fail "$page has no $section section"
    done
    grep -Eq '^\.TH [^ ]+ 1 ' "$page" || fail "$page is not in section 1 (.TH NAME 1 ...)"

    # The same check, on the page without one of the options, must fail.
    first=$(head -n 1 "$work/$tool.options")
    sed -e "s/$(printf '%s' "$first" | sed 's/-/\\\\-/g')//g" "$page" >"$work/$tool.1"
    if ! missing_options "$work/$tool.options" "$work/$tool.1" | grep -qx -e "$first"; then
        fail "the check misses $first taken out of a copy of $page"
    fi

    if command -v groff >/dev/null 2>&1; then
        groff -man -ww -z "$page" >"$work/groff.out" 2>&1 || fail "groff -man -ww -z $page failed"
        if [ -s "$work/groff.out" ]; then
            fail "groff -man -ww warns about $page:"
            sed 's/^/  /' "$work/groff.out"
        fi
    fi
done

if [ "$checked" -eq 0 ]; then
    echo "SKIP: no tool is built in this configuration"
    exit 77
fi
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "PASS: $checked manual pages list every option of their tool's --help"
