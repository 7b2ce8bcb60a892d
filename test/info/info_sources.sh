#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every value shows where it comes from, in the parsable form
#   mca:FW:COMP:param:NAME:source:SOURCE
# and --mca / --tune let a user see what a setting resolves to.
. "$TEST_LIB"

verbose=mca:carto:base:param:carto_base_verbose

# The default, for a core parameter and a framework parameter.
run_info --param mca base --level 9 --parsable
expect_status 0
expect_err_empty
expect_line "meridian:version:full:$MERIDIAN_VERSION"
expect_line "mca:mca:base:param:mca_base_strict_params:value:false"
expect_line "mca:mca:base:param:mca_base_strict_params:source:default"
expect_line "mca:mca:base:param:mca_base_strict_params:level:4"
expect_line "mca:mca:base:param:mca_base_strict_params:type:bool"
expect_line "mca:mca:base:param:mca_base_strict_params:help:Treat a setting that no component registers as an error instead of a warning"
expect_line "mca:mca:base:param:mca_base_strict_params:deprecated:no"
expect_line "mca:mca:base:param:mca_base_strict_params:status:writeable"
expect_line "mca:mca:base:param:mca_base_strict_params:settable-in-files:yes"
# The status field says where and when a parameter may be set.
expect_line "mca:mca:base:param:mca_base_param_files:settable-in-files:no"
# What the test environment set shows as such.
expect_line "mca:mca:base:param:mca_base_param_files:value:none"
expect_line "mca:mca:base:param:mca_base_param_files:source:environment"
# --param mca base: no framework is shown.
expect_no_match '^mca:carto:'

run_info --param carto base --level 9 --parsable
expect_line "$verbose:value:0"
expect_line "$verbose:source:default"
expect_line "$verbose:type:int"
expect_line "$verbose:enumerator:value:0:none"
expect_line "$verbose:enumerator:value:40:debug"
expect_line "$verbose:enumerator:value:100:max"
expect_line "$verbose:minimum:0"
expect_line "$verbose:maximum:100"
# The selection parameter is framework-level and unset by default.
expect_line "mca:carto:base:param:carto:value:"
expect_line "mca:carto:base:param:carto:source:default"
expect_line "mca:carto:base:param:carto:type:string"

# The command line.  A parameter set here is shown whatever its level (8),
# even with no --param or --level; others above level 1 stay hidden.
run_info --mca carto_base_verbose 30 --parsable
expect_status 0
expect_err_empty
expect_line "$verbose:value:30"
expect_line "$verbose:source:command line"
expect_no_match '^mca:pnet:base:param:pnet_base_verbose:'
expect_no_match '^mca:mca:base:param:'

# The environment.
run_env()
{
    last_command="$1=$2 meridian_info $*"
    name=$1
    value=$2
    shift 2
    runs=$((runs + 1))
    env "$name=$value" "$MERIDIAN_INFO" "$@" >"$out" 2>"$err"
    status=$?
}
run_env "${P}carto_base_verbose" warn --param carto base --level 8 --parsable
expect_status 0
expect_err_empty
expect_line "$verbose:value:10"
expect_line "$verbose:source:environment"

# A --tune file, with its path and the line of the setting.
tune=$scratch/tune.conf
printf '# tuning for the test\n\ncarto_base_verbose = debug\n' >"$tune"
run_info --tune "$tune" --parsable
expect_status 0
expect_err_empty
expect_line "$verbose:value:40"
expect_line "$verbose:source:file ($tune:3)"

# Precedence: the environment beats a tune file, the command line beats both.
run_env "${P}carto_base_verbose" 20 --tune "$tune" --parsable
expect_line "$verbose:value:20"
expect_line "$verbose:source:environment"
run_env "${P}carto_base_verbose" 20 --tune "$tune" --mca carto_base_verbose 1 --parsable
expect_line "$verbose:value:1"
expect_line "$verbose:source:command line"

# A param file the user names.
user=$scratch/user.conf
printf 'carto_base_verbose = 5\n' >"$user"
run_env "${P}mca_base_param_files" "$user" --param carto base --level 8 --parsable
expect_status 0
expect_err_empty
expect_line "$verbose:value:5"
expect_line "$verbose:source:file ($user:1)"

# The override file beats even the command line.
override=$scratch/override.conf
printf '# site policy\n\ncarto_base_verbose = warn\n' >"$override"
run_env "${P}mca_base_override_param_file" "$override" --mca carto_base_verbose 2 --parsable
expect_status 0
expect_err_empty
expect_line "$verbose:value:10"
expect_line "$verbose:source:override file ($override:3)"

# Free text stays on one line: a newline in a value is written \n.
run_env "${P}mca_base_component_show_load_errors" "$(printf 'carto\nback\\slash')" \
    --param mca base --level 9 --parsable
expect_line 'mca:mca:base:param:mca_base_component_show_load_errors:value:carto\nback\\slash'

# A name nothing registers: a warning with the closest name; not an error.
run_info --mca carto_base_verbos 5 --parsable
expect_status 0
expect_err_line 'meridian: warning: MCA parameter "carto_base_verbos" (set in the command line) is not registered by any component; did you mean carto_base_verbose?'

# A value that does not parse: an error naming it; the default stays, the
# whole report is still printed, and the exit status says so.
run_info --mca carto_base_verbose loud --parsable
expect_status 1
expect_line "$verbose:value:0"
expect_line "$verbose:source:default"
expect_match '^mca:msg:base:version:api:[0-9]+\.[0-9]+\.[0-9]+$'
expect_err_match '^meridian: error: bad value "loud" for MCA parameter carto_base_verbose from the command line: '


# A selection naming a component that is not there: the error open would
# give, said by meridian_info although it opens nothing.
run_info --mca carto nosuch --parsable
expect_status 1
expect_err_match '^meridian: error: MCA parameter carto (\(from the command line\) )?names component "nosuch", which is not available; available carto components: '
expect_line "mca:carto:base:param:carto:value:nosuch"
expect_line "mca:carto:base:param:carto:source:command line"

# The same facts for people.
run_info --mca carto_base_verbose 30
expect_status 0
expect_line "    carto_base_verbose = 30  [command line]"

finish
