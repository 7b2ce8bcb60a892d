#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The commands' bash completion (contrib/completion/meridian.bash): installed
# under each command's name by `make install` (install-bash-completion, into a
# scratch DESTDIR), then sourced from there into bash and asked, as bash asks
# it, for the words of partial command lines: options, option values, MCA
# parameter names and components (from meridian_info, with a test component
# in the component path), and meridian_carto's commands and vertices.
. "$TEST_LIB"

: "${MAKE:?run me from make check}" "${TOP_BUILDDIR:?}" "${BASHCOMPLETIONDIR:?}"
if ! command -v bash >/dev/null 2>&1; then
    echo "SKIP: no bash"
    exit 77
fi
cp "$TEST_COMPONENTS/mca_carto_infotest.so" "$scratch/components/" ||
    { echo "FAIL: $TEST_COMPONENTS/mca_carto_infotest.so was not built"; exit 1; }

# Installed under each command's name, and removed again by uninstall.
dest=$scratch/dest
run_tool env MAKEFLAGS= "$MAKE" -C "$TOP_BUILDDIR" install-bash-completion DESTDIR="$dest"
expect_status 0
completions=$dest$BASHCOMPLETIONDIR
for command in meridian_info meridian_carto meridian_netmap qmp-config; do
    [ -f "$completions/$command" ] || fail "no completion installed as $completions/$command"
done

# Each line: the words of a command line, the last one being completed ("" for
# a new word); bash prints what the completion offers.
ask()
{
    bash -c '
        . "$1"
        shift
        spec=$(complete -p "$(basename "$1")") || exit 3
        function=${spec#*-F }
        function=${function%% *}
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        "$function"
        [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"
    ' ask "$completions/meridian_info" "$@"
}

info=$(dirname "$MERIDIAN_INFO")/meridian_info
carto=$(dirname "$MERIDIAN_INFO")/meridian_carto
netmap=$(dirname "$MERIDIAN_INFO")/meridian_netmap

run_tool ask "$info" --pa
expect_out <<'LINES'
--param
--path
--parsable
LINES

# Frameworks, then a framework's components (the test component included).
run_tool ask "$info" --param ""
expect_line all
expect_line carto
expect_line pnet
# (A static build lists carto's built-in components too.)
run_tool ask "$info" --param carto ""
expect_line all
expect_line base
expect_line infotest
expect_no_match '^(pnet|coord|msg|tcp)$'

# MCA parameter names, the components' too; a value is not guessed.
run_tool ask "$info" --mca carto_infotest_r
expect_out <<'LINES'
carto_infotest_ratio
LINES
run_tool ask "$info" --mca mca_base_component_p
expect_out <<'LINES'
mca_base_component_path
LINES
run_tool ask "$info" --mca carto_infotest_ratio ""
expect_out_empty
run_tool ask "$info" --level 9
expect_out <<'LINES'
9
LINES

# meridian_carto: its commands, then the map's vertices (of the map the
# command line's own --mca names).
run_tool ask "$carto" ""
expect_out <<'LINES'
graph
distance
path
vertices
help
LINES
run_tool ask "$carto" graph --format d
expect_out <<'LINES'
dot
LINES
saved_path=$(printenv "${P}mca_base_component_path")
export "${P}mca_base_component_path=$TOP_BUILDDIR/components/carto_file/.libs"
run_tool ask "$carto" --mca carto_file_path "$TOP_SRCDIR/contrib/carto/figure3.carto" path Sl
expect_out <<'LINES'
Slot0
Slot1
Slot2
Slot3
LINES
export "${P}mca_base_component_path=$saved_path"

run_tool ask "$netmap" --bind p
expect_out <<'LINES'
package
LINES
run_tool ask qmp-config --l
expect_out <<'LINES'
--ldflags
--libs
--libdir
LINES

run_tool env MAKEFLAGS= "$MAKE" -C "$TOP_BUILDDIR" uninstall-bash-completion DESTDIR="$dest"
expect_status 0
for command in meridian_info meridian_carto meridian_netmap qmp-config; do
    [ ! -e "$completions/$command" ] || fail "uninstall left $completions/$command"
done
finish
