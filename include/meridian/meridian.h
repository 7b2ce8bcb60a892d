/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Meridian's C API in one header: the runtime (init, finalize, version),
 * errors and output, the parameter system, the component ABI and framework
 * lifecycle, and the four frameworks' component contracts and C queries.
 *
 *   #include <meridian/meridian.h>
 *   cc $(pkg-config --cflags meridian) -c prog.c
 *   cc prog.o $(pkg-config --libs meridian)      (add --static for libmeridian.a)
 *
 * Every header is included as <meridian/...>, so no include path can make
 * another project's opal/ or mca/ headers stand in for these.  Every exported
 * C name begins with meridian_ (see <meridian/rename.h>).  C89-compatible C
 * and C++ may include it; the C++ API is <meridian/meridian.hpp>.
 */
#ifndef MERIDIAN_MERIDIAN_H
#define MERIDIAN_MERIDIAN_H

#include <meridian/rename.h>

#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/carto.h>
#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/coord/coord.h>
#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/msg/msg.h>
#include <meridian/mca/pnet/base/base.h>
#include <meridian/mca/pnet/pnet.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/class/coordinate.h>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/mca.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>

#endif
