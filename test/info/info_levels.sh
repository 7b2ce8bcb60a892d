#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Which parameters are shown: --param narrows to frameworks and components,
# --level N shows levels 1..N (default 1), --all shows everything.
# Levels used: carto (selection) 2, carto_base_verbose 8,
# mca_base_strict_params 4, mca_base_param_files 5, mca_base_component_path 9.
. "$TEST_LIB"

selection=mca:carto:base:param:carto
verbose=mca:carto:base:param:carto_base_verbose

# Without --param, --level or --all: frameworks and components, no parameter.
run_info --parsable
expect_status 0
expect_err_empty
expect_match '^mca:carto:base:version:api:'
expect_match '^mca:msg:base:components:'
expect_no_match ':param:'

# --param alone: level 1.
run_info --param carto base --parsable
expect_status 0
expect_no_line "$selection:level:2"
expect_no_line "$verbose:level:8"

run_info --param carto base --level 2 --parsable
expect_line "$selection:level:2"
expect_no_line "$verbose:level:8"
# The selection holds while the framework is open.
expect_line "$selection:status:read-only-after-open"

run_info --param carto base --level 8 --parsable
expect_line "$selection:level:2"
expect_line "$verbose:level:8"
# Other frameworks are out of scope.
expect_no_match '^mca:pnet:'
expect_no_match '^mca:mca:base:param:'

# Levels apply to the core's parameters too.
run_info --param mca base --level 4 --parsable
expect_line "mca:mca:base:param:mca_base_strict_params:level:4"
expect_no_match '^mca:mca:base:param:mca_base_param_files:'
run_info --param mca base --level 5 --parsable
expect_line "mca:mca:base:param:mca_base_param_files:level:5"
expect_no_match '^mca:mca:base:param:mca_base_component_path:'

# --level alone: every framework at that level.
run_info --level 2 --parsable
for fw in carto pnet coord msg; do
    expect_line "mca:$fw:base:param:$fw:level:2"
    expect_no_match "^mca:$fw:base:param:${fw}_base_verbose:"
done
expect_no_match '^mca:mca:base:param:mca_base_strict_params:'

# --param repeats; "all" as the framework takes one component name everywhere.
run_info --param mca base --param pnet base --level 9 --parsable
expect_line "mca:mca:base:param:mca_base_component_path:level:9"
expect_line "mca:pnet:base:param:pnet_base_verbose:level:8"
expect_no_match '^mca:carto:'
run_info --param all base --level 8 --parsable
for fw in carto pnet coord msg; do
    expect_line "mca:$fw:base:param:${fw}_base_verbose:level:8"
done

# --all: every parameter of every level, paths and failures too.
run_info --all --parsable
expect_status 0
expect_line "mca:mca:base:param:mca_base_component_path:level:9"
expect_line "$verbose:level:8"
expect_match '^path:prefix:'

# An explicit --level narrows --all.
run_info --all --level 2 --parsable
expect_line "$selection:level:2"
expect_no_line "$verbose:level:8"

# For people, the hidden ones are counted, with how to see them.
run_info --param mca base
expect_status 0
expect_line "7 parameters above level 1 not shown: --level 9 or --all shows them."
run_info --param mca base --level 5
expect_line "2 parameters above level 5 not shown: --level 9 or --all shows them."
expect_line '    mca_base_param_files = "none"  [environment]'
run_info --param carto base --level 2
expect_line "    carto = (not set)  [default]"

finish
