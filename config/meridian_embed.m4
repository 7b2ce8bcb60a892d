dnl SPDX-License-Identifier: BSD-3-Clause
dnl Embedding Meridian in another project's autotools tree (an MPI library,
dnl a runtime), the way hwloc and OpenPMIx are embedded: Meridian's sources
dnl sit in a subdirectory of the outer tree, the outer configure configures
dnl them, and the outer project links the static library into its own.
dnl
dnl In the outer configure.ac (Meridian's sources in meridian/):
dnl
dnl   m4_include([meridian/config/meridian_embed.m4])
dnl   MERIDIAN_SETUP_EMBEDDED([meridian], [MYAPP_MCA_], [myapp_meridian_],
dnl                           [${libdir}/myapp/meridian])
dnl
dnl and in the outer Makefile.am:
dnl
dnl   SUBDIRS = meridian .
dnl   myprog_CPPFLAGS = $(MERIDIAN_EMBEDDED_CPPFLAGS)
dnl   myprog_LDADD = $(MERIDIAN_EMBEDDED_LDADD)
dnl
dnl MERIDIAN_SETUP_EMBEDDED(DIR, [ENV-PREFIX], [SYMBOL-PREFIX], [COMPONENT-DIR],
dnl                         [MORE-OPTIONS])
dnl   DIR            Meridian's source directory, relative to the outer top.
dnl   ENV-PREFIX     prefix of the environment variables that set MCA
dnl                  parameters (default MERIDIAN_MCA_).
dnl   SYMBOL-PREFIX  replaces "meridian_" in every exported C name (default
dnl                  meridian_), so a second Meridian in the process, or any
dnl                  library with clashing names, never meets this one.
dnl   COMPONENT-DIR  where third-party component DSOs are looked for first
dnl                  (default ${libdir}/meridian); quote ${libdir} so that it
dnl                  is expanded by make.
dnl   MORE-OPTIONS   further options for Meridian's configure, e.g.
dnl                  --enable-tools or --enable-qmp to build and install the
dnl                  tools or the QMP library too, or --without-ucx.
dnl
dnl Meridian is then configured --enable-embedded-mode: libmeridian is a
dnl static convenience library with every component inside, and nothing is
dnl installed (no headers, tools, QMP or pkg-config files) unless
dnl MORE-OPTIONS asks.  Sets and substitutes:
dnl   MERIDIAN_EMBEDDED_CPPFLAGS  the -I options for <meridian/...>
dnl   MERIDIAN_EMBEDDED_LDADD     the libtool library to link (it carries
dnl                               its own dependencies, the C++ runtime
dnl                               included, so a C program links it too)
dnl   MERIDIAN_EMBEDDED_QMP_LDADD libqmp and libmeridian (with --enable-qmp)
AC_DEFUN([MERIDIAN_SETUP_EMBEDDED], [
    AS_IF([test ! -f "$srcdir/$1/opal/mca/mca.h"],
        [AC_MSG_ERROR([Meridian embedding: $srcdir/$1 does not hold Meridian's sources (no opal/mca/mca.h)])])
    meridian_embedded_args="--enable-embedded-mode"
    m4_ifval([$2], [meridian_embedded_args="$meridian_embedded_args '--with-mca-env-prefix=$2'"])
    m4_ifval([$3], [meridian_embedded_args="$meridian_embedded_args '--with-symbol-prefix=$3'"])
    dnl Single quotes keep ${libdir} for make to expand.
    m4_ifval([$4], [meridian_embedded_component_dir='$4'
        meridian_embedded_args="$meridian_embedded_args '--with-component-dir=$meridian_embedded_component_dir'"])
    m4_ifval([$5], [meridian_embedded_args="$meridian_embedded_args $5"])
    AC_MSG_NOTICE([Meridian in $1 is configured with: $meridian_embedded_args])
    ac_configure_args="$ac_configure_args $meridian_embedded_args"
    AC_CONFIG_SUBDIRS([$1])
    AC_SUBST([MERIDIAN_EMBEDDED_CPPFLAGS], ['-I$(top_builddir)/$1/include -I$(top_srcdir)/$1/include'])
    AC_SUBST([MERIDIAN_EMBEDDED_LDADD], ['$(top_builddir)/$1/libmeridian.la'])
    AC_SUBST([MERIDIAN_EMBEDDED_QMP_LDADD], ['$(top_builddir)/$1/libqmp.la $(top_builddir)/$1/libmeridian.la'])
])
