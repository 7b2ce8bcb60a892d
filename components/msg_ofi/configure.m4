dnl SPDX-License-Identifier: BSD-3-Clause
dnl msg_ofi: the msg framework's libfabric transport (component "ofi").
m4_define([MCA_msg_ofi_FRAMEWORK], [msg])
m4_define([MCA_msg_ofi_NAME], [ofi])

dnl MCA_msg_ofi_LIBFABRIC_BINDING: what a program linked with libfabric would
dnl bind, for this component, which opens libfabric only when a job needs it
dnl (msg_ofi_libfabric.cc): the soname the link records
dnl (MERIDIAN_LIBFABRIC_SONAME) and the symbol version of each function it
dnl calls (MERIDIAN_FI_<NAME>_VERSION, the fi_info ABI of the
dnl headers), read from a test program with $NM and $OBJDUMP.  The
dnl -Wl,-rpath of --with-libfabric=DIR goes into LIBFABRIC_RUNPATH, so the
dnl component still finds DIR's copy.
AC_DEFUN([MCA_msg_ofi_LIBFABRIC_BINDING], [
    AC_CHECK_TOOL([OBJDUMP], [objdump], [false])
    LIBFABRIC_RUNPATH=
    for mlb_flag in $LIBFABRIC_LIBS; do
        AS_CASE([$mlb_flag], [-Wl,-rpath,*], [LIBFABRIC_RUNPATH="$LIBFABRIC_RUNPATH $mlb_flag"])
    done
    AC_SUBST([LIBFABRIC_RUNPATH])
    AC_MSG_CHECKING([which libfabric and symbol versions a link binds])
    AC_LANG_PUSH([C])
    mlb_save_CPPFLAGS=$CPPFLAGS
    mlb_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $LIBFABRIC_CFLAGS"
    LIBS="$LIBFABRIC_LIBS $LIBS"
    mlb_soname=
    mlb_versions=
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <rdma/fabric.h>
#include <rdma/fi_errno.h>]],
        [[struct fi_info *info = fi_dupinfo(0);
          struct fid_fabric *fabric = 0;
          int rc = fi_getinfo(FI_VERSION(1, 10), 0, 0, 0, info, &info);
          rc += fi_fabric(info->fabric_attr, &fabric, 0);
          fi_freeinfo(info);
          return rc + (fi_strerror(rc) != 0);]])], [
        mlb_soname=`$OBJDUMP -p conftest$EXEEXT 2>/dev/null | sed -n 's/^ *NEEDED *\(libfabric[[^ ]]*\).*/\1/p' | sed 1q`
        m4_foreach_w([mlb_fn], [getinfo freeinfo dupinfo fabric strerror], [
        mlb_v=`$NM -D conftest$EXEEXT 2>/dev/null | sed -n "s/.* U fi_[]mlb_fn@@*\(@<:@A-Za-z0-9_.@:>@*\).*/\1/p" | sed 1q`
        AS_IF([test -n "$mlb_v"], [
            AC_DEFINE_UNQUOTED(m4_toupper([MERIDIAN_FI_]mlb_fn[_VERSION]), ["$mlb_v"],
                               [The symbol version a link with libfabric binds fi_]mlb_fn[ to.])
            mlb_versions="$mlb_versions fi_[]mlb_fn@$mlb_v"])])])
    CPPFLAGS=$mlb_save_CPPFLAGS
    LIBS=$mlb_save_LIBS
    AC_LANG_POP([C])
    AS_IF([test -z "$mlb_soname"], [mlb_soname=libfabric.so.1])
    AC_DEFINE_UNQUOTED([MERIDIAN_LIBFABRIC_SONAME], ["$mlb_soname"],
                       [The libfabric the msg ofi component opens when a job needs it.])
    AC_MSG_RESULT([$mlb_soname${mlb_versions:- (no symbol versions)}])
])

AC_DEFUN([MCA_msg_ofi_CONFIG], [
    AS_IF([test "$meridian_have_libfabric" != yes],
          [mca_reason=$meridian_why_libfabric
           $2],
          [MCA_msg_ofi_LIBFABRIC_BINDING
           $1])
])
