dnl SPDX-License-Identifier: BSD-3-Clause
m4_define([MCA_coord_torus_FRAMEWORK], [coord])
m4_define([MCA_coord_torus_NAME], [torus])
AC_DEFUN([MCA_coord_torus_CONFIG], [$1])
