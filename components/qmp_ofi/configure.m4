dnl qmp_ofi: the msg framework's libfabric transport (component "ofi").
m4_define([MCA_qmp_ofi_FRAMEWORK], [msg])
m4_define([MCA_qmp_ofi_NAME], [ofi])
AC_DEFUN([MCA_qmp_ofi_CONFIG], [
    AS_IF([test "$meridian_have_libfabric" = yes], [$1],
          [mca_reason=$meridian_why_libfabric
           $2])
])
