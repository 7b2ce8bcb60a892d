dnl SPDX-License-Identifier: BSD-3-Clause
m4_define([MCA_pnet_tcp_FRAMEWORK], [pnet])
m4_define([MCA_pnet_tcp_NAME], [tcp])
AC_DEFUN([MCA_pnet_tcp_CONFIG], [$1])
