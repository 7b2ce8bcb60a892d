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
dnl                           [${libdir}/myapp/meridian], [],
dnl                           [have_meridian=yes],
dnl                           [AC_MSG_WARN([building without Meridian])])
dnl   AM_CONDITIONAL([HAVE_MERIDIAN], [test "$have_meridian" = yes])
dnl
dnl and in the outer Makefile.am:
dnl
dnl   SUBDIRS = meridian .
dnl   myprog_CPPFLAGS = $(MERIDIAN_EMBEDDED_CPPFLAGS)
dnl   myprog_LDADD = $(MERIDIAN_EMBEDDED_LDADD)
dnl
dnl MERIDIAN_SETUP_EMBEDDED(DIR, [ENV-PREFIX], [SYMBOL-PREFIX], [COMPONENT-DIR],
dnl                         [MORE-OPTIONS], [ACTION-IF-HAPPY],
dnl                         [ACTION-IF-NOT-HAPPY])
dnl   DIR            Meridian's source directory, relative to the outer top:
dnl                  a release's sources, or a git checkout (its configure is
dnl                  then made first, with autogen.sh: autoconf, automake and
dnl                  libtool must be installed).
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
dnl   ACTION-IF-HAPPY      run once Meridian is configured.
dnl   ACTION-IF-NOT-HAPPY  run when it cannot be (the reason is in
dnl                  $meridian_embedded_why); default: stop with that reason.
dnl
dnl Meridian's configure runs when the macro does, in DIR of the build tree,
dnl with the options above, the compilers and flags the outer configure was
dnl given, its installation directories, and nothing else of its command line: the
dnl outer project's --with-* and --enable-* options are its own.  (Meridian's
dnl options for an embedded build go in MORE-OPTIONS.)  A failure stops the
dnl outer configure there, before any Makefile is written.
dnl
dnl Meridian is configured --enable-embedded-mode: libmeridian is a static
dnl convenience library with every component inside, compiled hidden but for
dnl the C API (a library that links it exports only SYMBOL-PREFIX* of
dnl Meridian's), and nothing is installed (no headers, tools, QMP or
dnl pkg-config files) unless MORE-OPTIONS asks.  Sets and substitutes:
dnl   MERIDIAN_EMBEDDED_CPPFLAGS  the -I options for <meridian/...>
dnl   MERIDIAN_EMBEDDED_LDADD     the libtool library to link (it carries
dnl                               its own dependencies, the C++ runtime
dnl                               included, so a C program links it too)
dnl   MERIDIAN_EMBEDDED_QMP_LDADD libqmp and libmeridian (with --enable-qmp)
dnl and, from what Meridian's configure found (DIR/meridian-embedded.sh):
dnl   MERIDIAN_EMBEDDED_VERSION        e.g. 0.1.0
dnl   MERIDIAN_EMBEDDED_SYMBOL_PREFIX  the exported C names' prefix
dnl   MERIDIAN_EMBEDDED_ENV_PREFIX     the environment variables' prefix
dnl   MERIDIAN_EMBEDDED_COMPONENTS     the components built in, framework/name
dnl   MERIDIAN_EMBEDDED_MISSING        the components not built, framework/name
dnl   MERIDIAN_EMBEDDED_QMP            yes when libqmp is built
dnl   MERIDIAN_EMBEDDED_TOOLS          yes when the tools are built
dnl _MERIDIAN_EMBEDDED_SUBST: what both macros give the outer Makefiles:
dnl MERIDIAN_EMBEDDED_CPPFLAGS, _LDADD and _QMP_LDADD as the caller set them,
dnl and what Meridian's configure (or meridian.pc) said, from the shell
dnl variables meridian_embedded_*.
m4_define([_MERIDIAN_EMBEDDED_SUBST], [
    AC_SUBST([MERIDIAN_EMBEDDED_CPPFLAGS])
    AC_SUBST([MERIDIAN_EMBEDDED_LDADD])
    AC_SUBST([MERIDIAN_EMBEDDED_QMP_LDADD])
    AC_SUBST([MERIDIAN_EMBEDDED_VERSION], [$meridian_embedded_version])
    AC_SUBST([MERIDIAN_EMBEDDED_SYMBOL_PREFIX], [$meridian_embedded_symbol_prefix])
    AC_SUBST([MERIDIAN_EMBEDDED_ENV_PREFIX], [$meridian_embedded_env_prefix])
    AC_SUBST([MERIDIAN_EMBEDDED_COMPONENTS], [$meridian_embedded_components])
    AC_SUBST([MERIDIAN_EMBEDDED_MISSING], [$meridian_embedded_missing])
    AC_SUBST([MERIDIAN_EMBEDDED_QMP], [$meridian_embedded_qmp])
    AC_SUBST([MERIDIAN_EMBEDDED_TOOLS], [$meridian_embedded_tools])
])

AC_DEFUN([MERIDIAN_SETUP_EMBEDDED], [
    AC_REQUIRE([AC_PROG_CC])
    AC_REQUIRE([AC_PROG_CXX])
    meridian_embedded_happy=yes
    meridian_embedded_why=
    meridian_embedded_src=
    AS_IF([test ! -f "$srcdir/$1/opal/mca/mca.h"],
        [meridian_embedded_happy=no
         meridian_embedded_why="$srcdir/$1 does not hold Meridian's sources (no opal/mca/mca.h)"],
        [meridian_embedded_src=$(cd "$srcdir/$1" && pwd)])
    dnl A git checkout has no configure yet.
    AS_IF([test "$meridian_embedded_happy" = yes && test ! -f "$meridian_embedded_src/configure"], [
        AC_MSG_NOTICE([Meridian in $1 has no configure (a checkout): running its autogen.sh])
        AS_IF([(cd "$meridian_embedded_src" && ./autogen.sh) >&AS_MESSAGE_LOG_FD 2>&1], [],
            [meridian_embedded_happy=no
             meridian_embedded_why="$1/autogen.sh failed (are autoconf, automake and libtool installed? see config.log)"])
    ])
    AS_IF([test "$meridian_embedded_happy" = yes], [
        dnl Each argument single-quoted, for eval; the directories as the
        dnl outer configure has them (${exec_prefix}/lib, expanded by make).
        meridian_embedded_args="'--enable-embedded-mode'"
        m4_ifval([$2], [meridian_embedded_args="$meridian_embedded_args '--with-mca-env-prefix=$2'"])
        m4_ifval([$3], [meridian_embedded_args="$meridian_embedded_args '--with-symbol-prefix=$3'"])
        dnl Single quotes keep ${libdir} for make to expand.
        m4_ifval([$4], [meridian_embedded_component_dir='$4'
            meridian_embedded_args="$meridian_embedded_args '--with-component-dir=$meridian_embedded_component_dir'"])
        for meridian_embedded_var in prefix exec_prefix libdir includedir bindir datarootdir sysconfdir; do
            eval "meridian_embedded_value=\$$meridian_embedded_var"
            AS_IF([test "$meridian_embedded_value" != NONE],
                [meridian_embedded_args="$meridian_embedded_args '--$(echo $meridian_embedded_var | tr _ -)=$meridian_embedded_value'"])
        done
        dnl The compilers and flags the outer configure was given (autoconf's
        dnl ac_env_VAR_set/_value, as they were before any check), so that
        dnl both configures choose alike and share a cache.
        for meridian_embedded_var in CC CXX CPP CXXCPP CPPFLAGS CFLAGS CXXFLAGS LDFLAGS LIBS; do
            eval "meridian_embedded_set=\${ac_env_${meridian_embedded_var}_set-}"
            AS_IF([test "$meridian_embedded_set" = set], [
                eval "meridian_embedded_value=\${ac_env_${meridian_embedded_var}_value-}"
                meridian_embedded_value=$(printf '%s' "$meridian_embedded_value" | sed "s/'/'\\\\''/g")
                meridian_embedded_args="$meridian_embedded_args '$meridian_embedded_var=$meridian_embedded_value'"
            ])
        done
        AS_IF([test -n "$host_alias"], [meridian_embedded_args="$meridian_embedded_args '--host=$host_alias'"])
        AS_IF([test -n "$build_alias"], [meridian_embedded_args="$meridian_embedded_args '--build=$build_alias'"])
        AS_IF([test "$silent" = yes], [meridian_embedded_args="$meridian_embedded_args --quiet"])
        dnl The outer configure's cache, when it keeps one (configure -C).
        AS_CASE([$cache_file],
            [/dev/null|""], [],
            [/*], [meridian_embedded_args="$meridian_embedded_args '--cache-file=$cache_file'"],
            [meridian_embedded_args="$meridian_embedded_args '--cache-file=$(pwd)/$cache_file'"])
        m4_ifval([$5], [meridian_embedded_args="$meridian_embedded_args $5"])
        AS_MKDIR_P([$1])
        dnl --no-recursion: the outer config.status rechecking; Meridian's own
        dnl config.status rechecks itself.
        AS_IF([test "$no_recursion" = yes && test -f "$1/config.status"], [
            AC_MSG_NOTICE([Meridian in $1: configured before, not again (--no-recursion)])
        ], [
            AC_MSG_NOTICE([configuring Meridian in $1 with: $meridian_embedded_args])
            AS_IF([(cd "$1" && eval "\"\$meridian_embedded_src/configure\" $meridian_embedded_args")], [],
                [meridian_embedded_happy=no
                 meridian_embedded_why="Meridian's configure in $1 failed (see $1/config.log)"])
        ])
    ])
    dnl What Meridian's configure found.
    AS_IF([test "$meridian_embedded_happy" = yes], [
        AS_IF([test -f "$1/meridian-embedded.sh"],
            [. "./$1/meridian-embedded.sh"],
            [meridian_embedded_happy=no
             meridian_embedded_why="Meridian's configure in $1 left no meridian-embedded.sh"])
    ])
    AS_IF([test "$meridian_embedded_happy" = yes], [
        MERIDIAN_EMBEDDED_CPPFLAGS='-I$(top_builddir)/$1/include -I$(top_srcdir)/$1/include'
        MERIDIAN_EMBEDDED_LDADD='$(top_builddir)/$1/libmeridian.la'
        MERIDIAN_EMBEDDED_QMP_LDADD='$(top_builddir)/$1/libqmp.la $(top_builddir)/$1/libmeridian.la'
        _MERIDIAN_EMBEDDED_SUBST
        AC_MSG_NOTICE([Meridian $meridian_embedded_version in $1: components $meridian_embedded_components])
        $6
    ], [
        m4_default([$7], [AC_MSG_ERROR([Meridian embedding: $meridian_embedded_why])])
    ])
])

dnl MERIDIAN_SETUP(DIR, [ENV-PREFIX], [SYMBOL-PREFIX], [COMPONENT-DIR],
dnl                [MORE-OPTIONS], [ACTION-IF-HAPPY], [ACTION-IF-NOT-HAPPY])
dnl The choice Open MPI offers for its PMIx and hwloc, as the outer
dnl configure's option --with-meridian:
dnl   internal (the default, or --with-meridian alone)  the copy in DIR,
dnl             set up by MERIDIAN_SETUP_EMBEDDED with the other arguments;
dnl   external  an installed Meridian that pkg-config finds (meridian.pc);
dnl   PREFIX    a Meridian installed under PREFIX (PREFIX/lib/pkgconfig or
dnl             PREFIX/lib64/pkgconfig), run from there (an rpath);
dnl   no        none: ACTION-IF-NOT-HAPPY.
dnl An installed Meridian is the standalone one: its C names begin with
dnl meridian_ and its environment prefix is its own, whatever ENV-PREFIX and
dnl SYMBOL-PREFIX say.  Sets what MERIDIAN_SETUP_EMBEDDED sets (from
dnl pkg-config for an installed one; MERIDIAN_EMBEDDED_QMP_LDADD from qmp.pc,
dnl with its rpath for PREFIX), and:
dnl   MERIDIAN_EMBEDDED_MODE    internal or external
dnl   MERIDIAN_EMBEDDED_SUBDIR  DIR for internal, empty otherwise: the outer
dnl                             Makefile.am's SUBDIRS = $(MERIDIAN_EMBEDDED_SUBDIR) .
AC_DEFUN([MERIDIAN_SETUP], [
    AC_ARG_WITH([meridian],
        [AS_HELP_STRING([--with-meridian=internal|external|PREFIX],
            [the Meridian to use: the copy in this tree's $1 (internal, the default), an installed one pkg-config finds (external), or one installed under PREFIX])])
    meridian_setup_mode=
    MERIDIAN_EMBEDDED_SUBDIR=
    AS_CASE([${with_meridian:-internal}],
        [internal|yes], [meridian_setup_mode=internal],
        [external], [meridian_setup_mode=external],
        [no], [meridian_setup_mode=no],
        [/*], [meridian_setup_mode=external],
        [AC_MSG_ERROR([--with-meridian=$with_meridian: expected internal, external, no or an absolute PREFIX])])
    AS_CASE([$meridian_setup_mode],
    [internal], [
        MERIDIAN_SETUP_EMBEDDED([$1], [$2], [$3], [$4], [$5],
            [MERIDIAN_EMBEDDED_MODE=internal
             MERIDIAN_EMBEDDED_SUBDIR=$1
             $6],
            [m4_default([$7], [AC_MSG_ERROR([Meridian embedding: $meridian_embedded_why])])])
    ],
    [external], [
        meridian_embedded_happy=yes
        meridian_embedded_why=
        AC_PATH_TOOL([MERIDIAN_PKG_CONFIG], [pkg-config], [no])
        meridian_setup_pc="$MERIDIAN_PKG_CONFIG"
        meridian_setup_rpath=
        AS_CASE([$with_meridian], [/*], [
            meridian_setup_pcpath=
            for meridian_setup_dir in "$with_meridian/lib/pkgconfig" "$with_meridian/lib64/pkgconfig"; do
                AS_IF([test -f "$meridian_setup_dir/meridian.pc"], [meridian_setup_pcpath=$meridian_setup_dir; break])
            done
            AS_IF([test -z "$meridian_setup_pcpath"],
                [meridian_embedded_happy=no
                 meridian_embedded_why="--with-meridian=$with_meridian: no meridian.pc in $with_meridian/lib/pkgconfig or $with_meridian/lib64/pkgconfig"])
            dnl The prefix where the .pc file is, not the one it was made for.
            meridian_setup_pc="env PKG_CONFIG_PATH=$meridian_setup_pcpath${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} $MERIDIAN_PKG_CONFIG --define-prefix"
        ])
        AS_IF([test "$meridian_embedded_happy" = yes && test "$MERIDIAN_PKG_CONFIG" = no],
            [meridian_embedded_happy=no
             meridian_embedded_why="--with-meridian=$with_meridian needs pkg-config, which is not installed"])
        AC_MSG_CHECKING([for an installed Meridian])
        AS_IF([test "$meridian_embedded_happy" = yes], [
            AS_IF([$meridian_setup_pc --exists meridian], [
                meridian_embedded_version=$($meridian_setup_pc --modversion meridian)
                MERIDIAN_EMBEDDED_CPPFLAGS=$($meridian_setup_pc --cflags meridian)
                MERIDIAN_EMBEDDED_LDADD=$($meridian_setup_pc --libs meridian)
                meridian_embedded_symbol_prefix=$($meridian_setup_pc --variable=symbolprefix meridian)
                meridian_embedded_env_prefix=$($meridian_setup_pc --variable=envprefix meridian)
                meridian_embedded_components=$($meridian_setup_pc --variable=components meridian)
                meridian_embedded_missing=$($meridian_setup_pc --variable=missing meridian)
                meridian_embedded_qmp=no
                MERIDIAN_EMBEDDED_QMP_LDADD=
                AS_IF([$meridian_setup_pc --exists qmp], [
                    meridian_embedded_qmp=yes
                    MERIDIAN_EMBEDDED_QMP_LDADD=$($meridian_setup_pc --libs qmp)
                ])
                AS_CASE([$with_meridian], [/*], [
                    meridian_setup_libdir=$($meridian_setup_pc --variable=libdir meridian)
                    MERIDIAN_EMBEDDED_LDADD="$MERIDIAN_EMBEDDED_LDADD -Wl,-rpath,$meridian_setup_libdir"
                    AS_IF([test -n "$MERIDIAN_EMBEDDED_QMP_LDADD"],
                        [MERIDIAN_EMBEDDED_QMP_LDADD="$MERIDIAN_EMBEDDED_QMP_LDADD -Wl,-rpath,$meridian_setup_libdir"])
                ])
                AC_MSG_RESULT([$meridian_embedded_version])
            ], [
                AC_MSG_RESULT([no])
                meridian_embedded_happy=no
                meridian_embedded_why="--with-meridian=$with_meridian: pkg-config does not find meridian (add the directory holding meridian.pc to PKG_CONFIG_PATH, or give --with-meridian=PREFIX)"
            ])
        ], [AC_MSG_RESULT([no])])
        AS_IF([test "$meridian_embedded_happy" = yes], [
            MERIDIAN_EMBEDDED_MODE=external
            _MERIDIAN_EMBEDDED_SUBST
            $6
        ], [
            m4_default([$7], [AC_MSG_ERROR([$meridian_embedded_why])])
        ])
    ],
    [
        meridian_embedded_why="--without-meridian"
        $7
    ])
    AC_SUBST([MERIDIAN_EMBEDDED_MODE])
    AC_SUBST([MERIDIAN_EMBEDDED_SUBDIR])
])
