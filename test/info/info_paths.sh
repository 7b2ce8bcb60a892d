#!/bin/sh
# --path: the installation directories, the effective component path and the
# param files that are read.
. "$TEST_LIB"

run_info --path --parsable
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
# Without --param, --level or --all: no parameters.
expect_no_match ':param:'

# The defaults: $pkglibdir then ~/.meridian/components, with HOME expanded;
# the system and user param files, and the override file.
run_info --path --parsable --mca mca_base_component_path "$INSTALL_PKGLIBDIR:\$HOME/.meridian/components:~/more"
expect_status 0
expect_line "path:component_path:$INSTALL_PKGLIBDIR"
expect_line "path:component_path:$HOME/.meridian/components"
expect_line "path:component_path:$HOME/more"

printf 'carto_base_verbose = 1\n' >"$scratch/one.conf"
printf 'carto_base_verbose = 2\n' >"$HOME/two.conf"
printf '\n' >"$scratch/site.conf"
run_info --path --parsable --mca mca_base_param_files "$scratch/one.conf:~/two.conf" \
    --mca mca_base_override_param_file "$scratch/site.conf"
expect_status 0
expect_err_empty
expect_line "path:param_file:$scratch/one.conf"
expect_line "path:param_file:$HOME/two.conf"
expect_line "path:override_param_file:$scratch/site.conf"

# For people, missing directories are marked.
run_info --path
expect_status 0
expect_line "  component path    $scratch/components"
expect_line "  param files       none"
rmdir "$scratch/components"
run_info --path
expect_line "  component path    $scratch/components  (does not exist)"

finish
