dnl SPDX-License-Identifier: BSD-3-Clause
dnl carto_auto: the host's map from hwloc (the live machine or an XML topology).
m4_define([MCA_carto_auto_FRAMEWORK], [carto])
m4_define([MCA_carto_auto_NAME], [auto])
AC_DEFUN([MCA_carto_auto_CONFIG], [
    AS_IF([test "$meridian_have_hwloc" = yes], [$1],
          [mca_reason=$meridian_why_hwloc
           $2])
])
