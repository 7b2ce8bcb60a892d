dnl SPDX-License-Identifier: BSD-3-Clause
dnl msg_self: the msg transport of a process's messages to itself.
m4_define([MCA_msg_self_FRAMEWORK], [msg])
m4_define([MCA_msg_self_NAME], [self])
AC_DEFUN([MCA_msg_self_CONFIG], [$1])
