dnl SPDX-License-Identifier: BSD-3-Clause
dnl pnet_ucx: UCX devices per process.  Needs UCX (configure.ac checks pkg-config ucx).
m4_define([MCA_pnet_ucx_FRAMEWORK], [pnet])
m4_define([MCA_pnet_ucx_NAME], [ucx])
AC_DEFUN([MCA_pnet_ucx_CONFIG], [
    AS_IF([test "$meridian_have_ucx" = yes], [$1],
          [mca_reason=$meridian_why_ucx
           $2])
])
