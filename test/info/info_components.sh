#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Components found as DSOs in mca_base_component_path are listed with their
# versions, path and parameters (also those with no parameters); those that
# cannot be loaded appear under --show-failed with the reason.
. "$TEST_LIB"

dir=$scratch/components
for dso in mca_carto_infotest.so mca_pnet_infoquiet.so mca_carto_infobad.so; do
    cp "$TEST_COMPONENTS/$dso" "$dir/" || { echo "FAIL: $TEST_COMPONENTS/$dso was not built"; exit 1; }
done
echo "not a library" >"$dir/mca_coord_notelf.so"

# The reason the loader gives for infobad, built for carto interface 9.
run_info --parsable
api=$(sed -n 's/^mca:carto:base:version:api://p' "$out")
major=${api%%.*}
minor=${api#*.}
minor=${minor%%.*}
bad_reason="implements carto interface 9.0.0, this library's carto framework is $api (needs major $major, minor at most $minor)"
notelf_reason="not a shared object (no ELF header)"

# The listing.
expect_status 0
expect_line "mca:carto:infotest:version:mca:1.0"
expect_line "mca:carto:infotest:version:api:2.0.0"
expect_line "mca:carto:infotest:version:component:1.2.3"
expect_line "mca:carto:infotest:path:$dir/mca_carto_infotest.so"
expect_line "mca:carto:infotest:aliases:infoalias"
expect_match '^mca:carto:base:components:(.*,)?infotest(,.*)?$'
expect_no_match '^mca:pnet:infoquiet:aliases:'
# A component without parameters is listed all the same.
expect_line "mca:pnet:infoquiet:version:mca:1.0"
expect_line "mca:pnet:infoquiet:version:component:0.9.1"
expect_line "mca:pnet:infoquiet:path:$dir/mca_pnet_infoquiet.so"
# Failures: reported on standard error by the loader, listed only on request.
expect_err_line "meridian: warning: cannot load component $dir/mca_carto_infobad.so: $bad_reason"
expect_err_line "meridian: warning: cannot load component $dir/mca_coord_notelf.so: $notelf_reason"
expect_no_match ':failed'
expect_no_match '^mca:carto:infobad:(version|path)'

run_info --show-failed --parsable
expect_status 0
expect_line "mca:carto:infobad:failed-path:$dir/mca_carto_infobad.so"
expect_line "mca:carto:infobad:failed:$bad_reason"
expect_line "mca:coord:notelf:failed-path:$dir/mca_coord_notelf.so"
expect_line "mca:coord:notelf:failed:$notelf_reason"

# The loader can be told to keep quiet; --show-failed still knows.
run_info --show-failed --mca mca_base_component_show_load_errors none --parsable
expect_err_empty
expect_line "mca:carto:infobad:failed:$bad_reason"

# --param narrows failures like everything else.
run_info --show-failed --param coord all --parsable
expect_line "mca:coord:notelf:failed:$notelf_reason"
expect_no_match '^mca:carto:'

# Every parameter of the component, every fact of each.
p=mca:carto:infotest:param
run_info --param carto infotest --level 9 --parsable
expect_status 0
expect_line "$p:carto_infotest_mode:value:fast"
expect_line "$p:carto_infotest_mode:source:default"
expect_line "$p:carto_infotest_mode:level:1"
expect_line "$p:carto_infotest_mode:type:enum"
expect_line "$p:carto_infotest_mode:help:How the test component works"
expect_line "$p:carto_infotest_mode:enumerator:value:0:off"
expect_line "$p:carto_infotest_mode:enumerator:value:1:fast"
expect_line "$p:carto_infotest_mode:enumerator:value:2:exact"
expect_line "$p:carto_infotest_mode:deprecated:no"
expect_line "$p:carto_infotest_mode:synonym:name:carto_infotest_style"
expect_line "$p:carto_infotest_mode:synonym:deprecated:carto_infotest_style"
# Unset string: an empty value; help with a newline stays on one line.
expect_line "$p:carto_infotest_label:value:"
expect_line "$p:carto_infotest_label:type:string"
expect_line "$p:carto_infotest_label:help:Free text for the tests.\\nA second line: with a colon"
expect_line "$p:carto_infotest_priority:value:10"
expect_line "$p:carto_infotest_priority:level:3"
expect_line "$p:carto_infotest_priority:minimum:0"
expect_line "$p:carto_infotest_priority:maximum:100"
expect_line "$p:carto_infotest_buffer:value:65536"
expect_line "$p:carto_infotest_buffer:type:size"
expect_line "$p:carto_infotest_hosts:value:alpha,beta"
expect_line "$p:carto_infotest_hosts:type:list"
expect_line "$p:carto_infotest_ratio:value:0.5"
expect_line "$p:carto_infotest_ratio:type:double"
expect_line "$p:carto_infotest_ratio:maximum:1"
expect_line "$p:carto_infotest_legacy:value:false"
expect_line "$p:carto_infotest_legacy:deprecated:yes"
# An empty help is left out, not printed empty.
expect_no_match "^$p:carto_infotest_legacy:help:"
# --param carto infotest: nothing else.
expect_no_match '^mca:carto:base:param:'
expect_no_match '^mca:pnet:'

# Level 1 (the default with --param): mode, label and hosts only.
run_info --param carto infotest --parsable
expect_line "$p:carto_infotest_mode:level:1"
expect_line "$p:carto_infotest_hosts:level:1"
expect_no_match "^$p:carto_infotest_(priority|buffer|ratio|legacy):"

# A component's parameter set on the command line, also by its deprecated
# synonym (which warns and names the new one).
run_info --mca carto_infotest_mode exact --mca carto_infotest_hosts x,y --parsable
expect_status 0
expect_err_line "meridian: warning: cannot load component $dir/mca_carto_infobad.so: $bad_reason"
expect_line "$p:carto_infotest_mode:value:exact"
expect_line "$p:carto_infotest_mode:source:command line"
expect_line "$p:carto_infotest_hosts:value:x,y"
run_info --mca carto_infotest_style off --mca mca_base_component_show_load_errors none --parsable
expect_status 0
expect_err_line "meridian: warning: MCA parameter carto_infotest_style (set in the command line) is deprecated; use carto_infotest_mode instead"
expect_line "$p:carto_infotest_mode:value:off"
expect_line "$p:carto_infotest_mode:source:command line"

# Selecting: the error open would give names the available components, with
# their aliases; an alias is a valid selection.
run_info --mca carto nosuch --mca mca_base_component_show_load_errors none --parsable
expect_status 1
expect_err_match '^meridian: error: MCA parameter carto (\(from the command line\) )?names component "nosuch", which is not available; available carto components: (.*, )?infotest \(also: infoalias\)(, .*)?$'
run_info --mca carto infoalias --mca mca_base_component_show_load_errors none --parsable
expect_status 0
expect_err_empty

# --param takes the loaded components' names; another is a mistake in the
# command line.
run_info --param pnet nosuch
expect_status 2
expect_out_empty
expect_err_match '^meridian: error: --param pnet nosuch: framework pnet has no component named "nosuch"; its components are: all, base(, [a-z0-9_]+)*, infoquiet(, [a-z0-9_]+)*$'
run_info --param all infotest --level 9 --mca mca_base_component_show_load_errors none --parsable
expect_status 0
expect_line "$p:carto_infotest_buffer:level:9"
expect_no_match '^mca:pnet:infoquiet:'

# For people: one line per component, and frameworks without any.
run_info --mca mca_base_component_show_load_errors none --show-failed
expect_status 0
expect_line "  infotest (also: infoalias): MCA 1.0, API 2.0.0, component 1.2.3, $dir/mca_carto_infotest.so"
expect_line "  infoquiet: MCA 1.0, API 2.0.0, component 0.9.1, $dir/mca_pnet_infoquiet.so"
expect_line "  infobad could not be loaded: $dir/mca_carto_infobad.so: $bad_reason"
expect_match '^Framework msg, interface [0-9.]+: '
# coord has no component here (unless one is built in): it is still listed.
"$MERIDIAN_INFO" --param coord all --parsable >"$scratch/coord" 2>/dev/null
if grep -qx 'mca:coord:base:components:none' "$scratch/coord"; then
    sed -n '/^Framework coord,/{n;p;}' "$out" | grep -qx '  no components' ||
        fail "coord is not listed with \"no components\""
fi

finish
