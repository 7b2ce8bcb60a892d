#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --json carries the same facts as --parsable: json_facts turns the JSON back
# into parsable lines and the two must be identical, for several selections.
. "$TEST_LIB"

dir=$scratch/components
for dso in mca_carto_infotest.so mca_pnet_infoquiet.so mca_carto_infobad.so; do
    cp "$TEST_COMPONENTS/$dso" "$dir/" || { echo "FAIL: $TEST_COMPONENTS/$dso was not built"; exit 1; }
done
export "${P}mca_base_component_show_load_errors=none"
tune=$scratch/tune.conf
printf 'carto_base_verbose = info\n' >"$tune"

compare()
{
    last_command="meridian_info $*"
    runs=$((runs + 1))
    "$MERIDIAN_INFO" --parsable "$@" >"$scratch/parsable" 2>"$err" || fail "--parsable failed"
    "$MERIDIAN_INFO" --json "$@" >"$scratch/json" 2>>"$err" || fail "--json failed"
    if ! "$JSON_FACTS" <"$scratch/json" >"$out"; then
        fail "json_facts could not read the JSON"
        return
    fi
    if ! diff -u "$scratch/parsable" "$out" >"$scratch/diff"; then
        fail "--json and --parsable differ:"
        sed 's/^/  /' "$scratch/diff"
    fi
    [ -s "$out" ] || fail "empty output"
}

compare
compare --all
compare --param carto infotest --level 9
compare --param mca base --param pnet all --level 4
compare --show-failed
compare --mca carto_infotest_label "$(printf 'two\nlines: and \\ a "quote"')" --tune "$tune" --level 1

# A value nothing sets is null in JSON (the parsable form can only leave it empty).
run_info --json --param carto infotest
expect_status 0
grep -q '"value": null' "$out" || fail 'no "value": null for the unset carto_infotest_label'

finish
