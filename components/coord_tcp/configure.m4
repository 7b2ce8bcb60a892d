dnl SPDX-License-Identifier: BSD-3-Clause
m4_define([MCA_coord_tcp_FRAMEWORK], [coord])
m4_define([MCA_coord_tcp_NAME], [tcp])
AC_DEFUN([MCA_coord_tcp_CONFIG], [$1])
