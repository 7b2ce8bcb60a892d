dnl SPDX-License-Identifier: BSD-3-Clause
dnl carto_file: the host's map from a carto file.  Needs nothing beyond the core.
m4_define([MCA_carto_file_FRAMEWORK], [carto])
m4_define([MCA_carto_file_NAME], [file])
AC_DEFUN([MCA_carto_file_CONFIG], [$1])
