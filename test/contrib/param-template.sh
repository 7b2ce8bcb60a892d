#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The param file template (contrib/conf/meridian-mca-params.conf), installed
# as $sysconfdir/meridian-mca-params.conf by a staged `make install`:
# Meridian reads it as it stands (everything commented out) without a word;
# with every example uncommented each setting is accepted and comes from the
# file; an edited file survives install and uninstall, and an unedited one is
# removed by uninstall.
# shellcheck source=test/contrib/stage.sh disable=SC2154 # stage.sh and Makefile.am set them
. "$srcdir/stage.sh"

template=$top_srcdir/contrib/conf/meridian-mca-params.conf
installed=$root$sysconfdir/meridian-mca-params.conf
[ -f "$installed" ] || fail "make install did not install $installed"
cmp -s "$template" "$installed" || fail "$installed differs from $template"

# The staged components; in a --disable-dlopen build they are in libmeridian
# and no component directory is installed, so an empty one stands in (naming
# one that does not exist is warned about).  Either way the environment
# outranks the template's example path, which names directories of a site.
if [ -d "$root$pkglibdir" ]; then
    export "${P}mca_base_component_path=$root$pkglibdir"
else
    mkdir -p "$stage/no-components"
    export "${P}mca_base_component_path=$stage/no-components"
fi
out=$stage/template.out
err=$stage/template.err

# As installed: read without an error or a warning.
rc=0
"$info" --mca mca_base_param_files "$installed" --all --parsable >"$out" 2>"$err" || rc=$?
[ $rc -eq 0 ] || fail "meridian_info with $installed exited $rc: $(cat "$err")"
[ ! -s "$err" ] || fail "meridian_info complained about $installed: $(cat "$err")"
if grep -q ':source:file (' "$out"; then
    fail "the template as installed sets something: $(grep ':source:file (' "$out" | head -n 3)"
fi

# Every example uncommented: the examples are the lines where a name follows
# '#' directly.
examples=$stage/examples.conf
sed 's/^#\([A-Za-z_][A-Za-z0-9_]* *=\)/\1/' "$installed" >"$examples"
grep -E '^[A-Za-z_][A-Za-z0-9_]* *=' "$examples" >"$stage/settings"
count=$(wc -l <"$stage/settings")
[ "$count" -ge 5 ] || fail "the template has only $count examples"

# An example may name a component this build left out (configure found no
# UCX, say); then the uncommented file cannot be judged here.
"$info" --parsable >"$stage/components.out" 2>/dev/null || true
built=$(sed -n 's/^mca:\([a-z]*\):base:components:\(.*\)$/\1:\2/p' "$stage/components.out" |
    awk -F: '{ n = split($2, c, ","); for (i = 1; i <= n; i++) print $1 ":" c[i] }')
missing=
while IFS= read -r line; do
    name=$(printf '%s\n' "$line" | sed 's/ *=.*//')
    value=$(printf '%s\n' "$line" | sed 's/^[^=]*= *//')
    case $name in
    carto | pnet | coord | msg)
        for component in $(printf '%s\n' "$value" | tr -d '^' | tr ',' ' '); do
            printf '%s\n' "$built" | grep -qx "$name:$component" || missing="$missing $name:$component"
        done
        ;;
    carto_base_* | pnet_base_* | coord_base_* | msg_base_* | mca_*) ;;
    carto_* | pnet_* | coord_* | msg_*)
        framework=${name%%_*}
        rest=${name#*_}
        component=${rest%%_*}
        printf '%s\n' "$built" | grep -qx "$framework:$component" || missing="$missing $framework:$component"
        ;;
    esac
done <"$stage/settings"

if [ -n "$missing" ]; then
    echo "SKIP: the uncommented examples need components this build does not have:$missing"
else
    rc=0
    "$info" --mca mca_base_param_files "$examples" --all --parsable >"$out" 2>"$err" || rc=$?
    [ $rc -eq 0 ] || fail "meridian_info with the examples uncommented exited $rc: $(cat "$err")"
    [ ! -s "$err" ] || fail "meridian_info complained about the uncommented examples: $(cat "$err")"
    while IFS= read -r line; do
        name=$(printf '%s\n' "$line" | sed 's/ *=.*//')
        number=$(grep -n -x -F -e "$line" "$examples" | head -n 1 | cut -d: -f1)
        case $name in
        # The environment, set above, outranks the file.
        mca_base_component_path) continue ;;
        esac
        grep -qF -e ":param:$name:source:file ($examples:$number)" "$out" ||
            fail "example $name (line $number) does not come from the file: $(grep ":param:$name:source:" "$out")"
    done <"$stage/settings"
fi

# An edited file is the administrator's: install keeps it, uninstall too.
printf 'carto_base_verbose = warn\n' >>"$installed"
cp "$installed" "$stage/edited.conf"
run_logged "$stage/reinstall.log" "$MAKE" -C "$top_builddir" install-meridian-conf DESTDIR="$root"
cmp -s "$installed" "$stage/edited.conf" || fail "install replaced the edited $installed"
grep -q "kept" "$stage/reinstall.log" || fail "install did not say it kept $installed: $(cat "$stage/reinstall.log")"
run_logged "$stage/uninstall-edited.log" "$MAKE" -C "$top_builddir" uninstall-meridian-conf DESTDIR="$root"
cmp -s "$installed" "$stage/edited.conf" || fail "uninstall removed or changed the edited $installed"

# Unedited again, the whole uninstall removes it; then it installs afresh.
cp "$template" "$installed"
run_logged "$stage/uninstall.log" "$MAKE" -C "$top_builddir" uninstall DESTDIR="$root"
[ ! -e "$installed" ] || fail "uninstall left the unedited $installed"
run_logged "$stage/install-again.log" "$MAKE" -C "$top_builddir" install-meridian-conf DESTDIR="$root"
cmp -s "$template" "$installed" || fail "installing into an empty $root$sysconfdir did not install the template"

echo "PASS: $installed is read as installed and with its $count examples uncommented; edits survive install and uninstall"
