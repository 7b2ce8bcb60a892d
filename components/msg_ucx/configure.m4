dnl SPDX-License-Identifier: BSD-3-Clause
dnl msg_ucx: the msg framework's UCX transport (component "ucx").  Needs UCX
dnl (configure.ac checks pkg-config ucx).
m4_define([MCA_msg_ucx_FRAMEWORK], [msg])
m4_define([MCA_msg_ucx_NAME], [ucx])

dnl MCA_msg_ucx_UCP_BINDING: the libucp soname a program linked with UCX
dnl would record (MERIDIAN_UCP_SONAME), for this component, which opens
dnl libucp only when a job needs it (msg_ucx_ucp.cc); the -Wl,-rpath of
dnl --with-ucx=DIR goes into UCX_RUNPATH, so the component still finds
dnl DIR's copy.
AC_DEFUN([MCA_msg_ucx_UCP_BINDING], [
    AC_CHECK_TOOL([OBJDUMP], [objdump], [false])
    UCX_RUNPATH=
    for mub_flag in $UCX_LIBS; do
        AS_CASE([$mub_flag], [-Wl,-rpath,*], [UCX_RUNPATH="$UCX_RUNPATH $mub_flag"])
    done
    AC_SUBST([UCX_RUNPATH])
    AC_MSG_CHECKING([which libucp a link binds])
    AC_LANG_PUSH([C])
    mub_save_CPPFLAGS=$CPPFLAGS
    mub_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $UCX_CFLAGS"
    LIBS="$UCX_LIBS $LIBS"
    mub_soname=
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <ucp/api/ucp.h>]],
        [[ucp_config_t *config = 0;
          return (int)ucp_config_read(0, 0, &config);]])], [
        mub_soname=`$OBJDUMP -p conftest$EXEEXT 2>/dev/null | sed -n 's/^ *NEEDED *\(libucp[[^ ]]*\).*/\1/p' | sed 1q`])
    CPPFLAGS=$mub_save_CPPFLAGS
    LIBS=$mub_save_LIBS
    AC_LANG_POP([C])
    AS_IF([test -z "$mub_soname"], [mub_soname=libucp.so.0])
    AC_DEFINE_UNQUOTED([MERIDIAN_UCP_SONAME], ["$mub_soname"],
                       [The libucp the msg ucx component opens when a job needs it.])
    AC_MSG_RESULT([$mub_soname])
])

AC_DEFUN([MCA_msg_ucx_CONFIG], [
    AS_IF([test "$meridian_have_ucx" != yes],
          [mca_reason=$meridian_why_ucx
           $2],
          [MCA_msg_ucx_UCP_BINDING
           $1])
])
