dnl SPDX-License-Identifier: BSD-3-Clause
dnl msg_tcp: the msg transport over Meridian's own TCP sockets.  Its
dnl handshake needs libsodium (HMAC-SHA-256, the OS's random source): without
dnl it the component is not built.
m4_define([MCA_msg_tcp_FRAMEWORK], [msg])
m4_define([MCA_msg_tcp_NAME], [tcp])
AC_DEFUN([MCA_msg_tcp_CONFIG], [
    AS_IF([test "$meridian_have_sodium" != yes],
          [mca_reason="$meridian_why_sodium (the handshake's authentication)"
           $2],
          [$1])
])
