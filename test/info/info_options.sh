#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meridian_info's own options: bad ones get one clear message that names
# them and points to --help, exit status 2 and no output.
. "$TEST_LIB"

run_info --bogus
expect_usage_error "unknown option --bogus (see meridian_info --help)"

run_info -q
expect_usage_error "unknown option -q (see meridian_info --help)"

# No abbreviations: --pa could be --param, --path or --parsable.
run_info --pa
expect_usage_error "unknown option --pa (see meridian_info --help)"

run_info extra
expect_usage_error 'unexpected argument "extra": meridian_info takes options only (see meridian_info --help)'

run_info --level 0
expect_usage_error '--level expects a number from 1 to 9, found "0" (see meridian_info --help)'

run_info --level=10 --parsable
expect_usage_error '--level expects a number from 1 to 9, found "10" (see meridian_info --help)'

run_info --level
expect_usage_error "--level needs a number from 1 to 9 (see meridian_info --help)"

run_info --parsable -l
expect_usage_error "--level needs a number from 1 to 9 (see meridian_info --help)"

run_info --param
expect_usage_error '--param needs FRAMEWORK COMPONENT ("all" for any) (see meridian_info --help)'

run_info --param carto
expect_usage_error '--param expects FRAMEWORK COMPONENT ("all" for any), found carto (see meridian_info --help)'

run_info --param carto all extra
expect_usage_error '--param expects FRAMEWORK COMPONENT ("all" for any), found carto all extra (see meridian_info --help)'

run_info --parsable --json
expect_usage_error "--parsable and --json cannot be used together (see meridian_info --help)"

# --param names are checked against what is registered; the message lists
# the valid ones (and the likely one for a typo).
run_info --param nosuch all --parsable
expect_usage_error '--param nosuch all: there is no framework named "nosuch"; the frameworks are: all, mca, carto, pnet, coord, msg'

run_info --param cartoo all
expect_usage_error '--param cartoo all: there is no framework named "cartoo" (did you mean carto?); the frameworks are: all, mca, carto, pnet, coord, msg'

# (Built-in components, in a --disable-dlopen build, join the lists.)
run_info --param carto nosuch
expect_status 2
expect_err_match '^meridian: error: --param carto nosuch: framework carto has no component named "nosuch"; its components are: all, base(, [a-z0-9_]+)*$'

run_info --param mca nosuch
expect_usage_error '--param mca nosuch: framework mca has no component named "nosuch"; its components are: all, base'

run_info --param all nosuch
expect_status 2
expect_err_match '^meridian: error: --param all nosuch: no framework has a component named "nosuch"; the components are: all, base(, [a-z0-9_]+)*$'

# Meridian's own options are the library's: a bad one is its message.
run_info --mca carto_base_verbose
expect_usage_error 'command line: --mca needs a parameter name and a value, found only "carto_base_verbose"'

run_info --mca carto_base_verbose 1 --mca carto_base_verbose 2
expect_usage_error 'command line: --mca carto_base_verbose is given twice (values "1" and "2")'

run_info --tune
expect_usage_error 'command line: --tune needs a file name, found end of arguments'

# A --tune file that cannot be read is not a mistake in the command line:
# exit status 1, and nothing is shown.
run_info --tune "$scratch/no-such.conf"
expect_status 1
expect_out_empty
printf 'meridian: error: cannot read param file %s: No such file or directory\n' "$scratch/no-such.conf" | expect_err

# Every read is bounded and checked: a device without end is refused once
# past the limit (not read until the memory runs out), and a file whose read
# fails part-way is an error, not a text applied in part.
run_info --tune /dev/zero
expect_status 1
expect_out_empty
printf 'meridian: error: cannot read param file /dev/zero: File too large (a param file is at most 16 MiB)\n' | expect_err
run_info --tune /proc/self/mem
expect_status 1
expect_out_empty
printf 'meridian: error: cannot read param file /proc/self/mem: Input/output error\n' | expect_err

# A value out of range names the parameter's range (the bounds are set just
# after the registration), not the range of its C type.
run_info --mca carto_base_verbose 99999999999999999999 --param carto base
expect_status 1
printf 'meridian: error: bad value "99999999999999999999" for MCA parameter carto_base_verbose from the command line: expected an integer between 0 and 100, or one of none (0), error (1), warn (10), info (20), debug (40), max (100)\n' | expect_err

printf 'carto_base_verbose 3\n' >"$scratch/bad.conf"
run_info --tune "$scratch/bad.conf"
expect_status 1
expect_out_empty
expect_err_line "meridian: error: $scratch/bad.conf:1:20: expected '=' after parameter name carto_base_verbose, found \"3\" (the file is ignored)"

# A program's own argument that looks like a Meridian option name is kept.
run_info --param mca base --level 4 --parsable
expect_status 0
expect_err_empty
expect_line "mca:mca:base:param:mca_base_strict_params:value:false"

run_info --help
expect_status 0
expect_err_empty
expect_line "Usage: meridian_info [OPTION]... [--mca NAME VALUE]... [--tune FILE[,FILE]]..."
expect_line "  --mca NAME VALUE      set an MCA parameter (repeatable)"

run_info --version
expect_status 0
expect_err_empty
expect_line "meridian_info (Meridian) $MERIDIAN_VERSION"
[ "$(wc -l <"$out")" -eq 1 ] || fail "--version prints more than one line"

finish
