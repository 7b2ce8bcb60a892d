dnl SPDX-License-Identifier: BSD-3-Clause
dnl msg_sm: the msg transport between processes of one node (shared-memory
dnl rings, CMA).  Linux only: process_vm_readv and POSIX shared memory.
m4_define([MCA_msg_sm_FRAMEWORK], [msg])
m4_define([MCA_msg_sm_NAME], [sm])
AC_DEFUN([MCA_msg_sm_CONFIG], [
    AC_CHECK_FUNC([process_vm_readv], [$1],
                  [mca_reason="no process_vm_readv (CMA)"
                   $2])
])
