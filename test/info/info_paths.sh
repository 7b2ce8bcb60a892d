#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --path NAME: one installation directory, or all of them, as configured;
# and the paths section of --all: the installation directories, the
# effective component path and the param files that are read.
. "$TEST_LIB"

# --path NAME: "NAME: DIR" and nothing else.
run_info --path prefix
expect_status 0
expect_err_empty
printf 'prefix: %s\n' "$INSTALL_PREFIX" | expect_out

run_info --path all
expect_status 0
expect_err_empty
expect_out <<EOF
prefix: $INSTALL_PREFIX
bindir: $INSTALL_BINDIR
libdir: $INSTALL_LIBDIR
incdir: $INSTALL_INCLUDEDIR
pkglibdir: $INSTALL_PKGLIBDIR
sysconfdir: $INSTALL_SYSCONFDIR
datadir: $INSTALL_DATADIR
mandir: $INSTALL_MANDIR
EOF

# componentdir is pkglibdir by the name meridian.pc gives it; repeated
# --path options answer in the order asked.
run_info --path componentdir --path incdir --path=bindir
expect_status 0
expect_err_empty
expect_out <<EOF
componentdir: $INSTALL_PKGLIBDIR
incdir: $INSTALL_INCLUDEDIR
bindir: $INSTALL_BINDIR
EOF

run_info --path libdir --parsable
expect_status 0
expect_err_empty
printf 'path:libdir:%s\n' "$INSTALL_LIBDIR" | expect_out

run_info --path mandir --path sysconfdir --json
expect_status 0
expect_err_empty
expect_out <<EOF
{
  "paths": {
    "mandir": "$INSTALL_MANDIR",
    "sysconfdir": "$INSTALL_SYSCONFDIR"
  }
}
EOF

# Mistakes: exit status 2, one message that lists the names.
names='prefix, bindir, libdir, incdir, pkglibdir, sysconfdir, datadir, mandir, componentdir, all'
run_info --path
expect_usage_error "--path needs a directory name: one of $names (see meridian_info --help)"

run_info --path bogus
expect_usage_error "--path expects a directory name, found \"bogus\"; the names are: $names (see meridian_info --help)"

run_info --path libdri
expect_usage_error "--path expects a directory name, found \"libdri\" (did you mean libdir?); the names are: $names (see meridian_info --help)"

run_info --path prefix --all
expect_usage_error '--path shows installation directories only: it cannot be combined with --all (see meridian_info --help)'

run_info --path prefix --param carto all
expect_usage_error '--path shows installation directories only: it cannot be combined with --param (see meridian_info --help)'

run_info --path prefix --parsable --json
expect_usage_error '--parsable and --json cannot be used together (see meridian_info --help)'

# The paths section of --all.
run_info --all --parsable
expect_status 0
expect_err_empty
expect_line "path:prefix:$INSTALL_PREFIX"
expect_line "path:libdir:$INSTALL_LIBDIR"
expect_line "path:pkglibdir:$INSTALL_PKGLIBDIR"
expect_line "path:sysconfdir:$INSTALL_SYSCONFDIR"
expect_line "path:includedir:$INSTALL_INCLUDEDIR"
expect_line "path:component_path:$scratch/components"
# "none": no param file and no override file.
expect_no_match '^path:(param_file|override_param_file):'

# The defaults: $pkglibdir then ~/.meridian/components, with HOME expanded;
# the system and user param files, and the override file.
run_info --all --parsable --mca mca_base_component_path "$INSTALL_PKGLIBDIR:\$HOME/.meridian/components:~/more"
expect_status 0
expect_line "path:component_path:$INSTALL_PKGLIBDIR"
expect_line "path:component_path:$HOME/.meridian/components"
expect_line "path:component_path:$HOME/more"

# The keywords for the defaults add a directory in front of them instead of
# replacing them: SYS_DEFAULT is the installation's component directory,
# USER_DEFAULT ~/.meridian/components, which need not exist (no warning,
# unlike a directory named by hand).
run_info --all --parsable --mca mca_base_component_path "$scratch/components:SYS_DEFAULT:USER_DEFAULT"
expect_status 0
expect_err_empty
expect_out_line "path:component_path:$scratch/components"
expect_out_line "path:component_path:$INSTALL_PKGLIBDIR"
expect_out_line "path:component_path:$HOME/.meridian/components"
expect_no_match '^path:component_path:.*_DEFAULT'
run_info --all --parsable --mca mca_base_component_path "$scratch/components:$HOME/.meridian/components"
expect_status 0
expect_err_match "names $HOME/.meridian/components, which does not exist; no component is loaded from it"

printf 'carto_base_verbose = 1\n' >"$scratch/one.conf"
printf 'carto_base_verbose = 2\n' >"$HOME/two.conf"
printf '\n' >"$scratch/site.conf"
run_info --all --parsable --mca mca_base_param_files "$scratch/one.conf:~/two.conf" \
    --mca mca_base_override_param_file "$scratch/site.conf"
expect_status 0
expect_err_empty
expect_line "path:param_file:$scratch/one.conf"
expect_line "path:param_file:$HOME/two.conf"
expect_line "path:override_param_file:$scratch/site.conf"

# For people, missing directories are marked.
run_info --all
expect_status 0
expect_line "  component path    $scratch/components"
expect_line "  param files       none"
rmdir "$scratch/components"
run_info --all
expect_line "  component path    $scratch/components  (does not exist)"

finish
