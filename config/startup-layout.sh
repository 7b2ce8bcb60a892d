#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Print the linker script that links libmeridian with its start-up functions
# side by side at the front of its code (config/startup_functions.txt, made
# by contrib/scripts/startup-order.sh, which says why).
#   startup-layout.sh 'LINK COMMAND' FUNCTIONS-FILE
# The script is the linker's own default for a shared library linked by LINK
# COMMAND (ld --verbose), so it follows whatever binutils and options the
# build has, with one line per listed function put first in .text: each
# function is its own section under -ffunction-sections.  The functions stay
# in .text, where debuggers and valgrind look for code.  A name the library
# no longer has matches nothing and costs nothing.  Exits non-zero, printing
# nothing, when the default script has no .text statement to put them in.
set -eu
link=$1
functions=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/startup-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The default script, between the lines of = that ld --verbose puts around it.
: >"$work/empty.s"
# (without -Werror: Clang warns of compile flags unused by a link)
# shellcheck disable=SC2086 # the link command is words
probe=$(for word in $link; do case $word in -Werror | -Werror=*) ;; *) printf '%s ' "$word" ;; esac; done)
# shellcheck disable=SC2086 # the link command is words
$probe -shared -nostdlib -Wl,--verbose -o "$work/probe.so" "$work/empty.s" >"$work/verbose" 2>&1 || true
awk '/^==========/ { inside = !inside; next } inside' "$work/verbose" >"$work/default.ld"
# A complete-object constructor or destructor (C1, D1) may be an alias in the
# base-object one's section (C2, D2) -- GCC 14 so emits std::string's -- so
# that section is named as well.
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/^[[:space:]]*\([^[:space:]]*\).*/\1/' "$functions" |
    awk '{ print "    *(.text." $1 ")"
           base = $1
           if (sub(/C1E/, "C2E", base) || sub(/D1E/, "D2E", base)) print "    *(.text." base ")" }' \
        >"$work/lines"
awk -v lines="$work/lines" '
    state == 0 && /^[[:space:]]*\.text[[:space:]]*:/ { state = 1; print; next }
    state == 1 && /^[[:space:]]*\{[[:space:]]*$/ {
        print
        while ((getline line < lines) > 0) { print line }
        state = 2
        next
    }
    { print }
    END { exit state == 2 ? 0 : 1 }' "$work/default.ld" >"$work/layout.ld"
cat "$work/layout.ld"
