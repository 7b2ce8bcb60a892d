// SPDX-License-Identifier: BSD-3-Clause
/*
 * Meridian's C++ API in one header (C++20): everything <meridian/meridian.h>
 * declares, plus the C++ classes of the core (parameters, sources, component
 * repository, frameworks, output, results), the shared data structures
 * (weighted graph, fabric model, ports, job map, coordinates), the datastore
 * and the frameworks' C++ queries (carto, coord, pnet).
 *
 *   #include <meridian/meridian.hpp>
 *   c++ -std=c++20 $(pkg-config --cflags meridian) -c prog.cc
 */
#ifndef MERIDIAN_MERIDIAN_HPP
#define MERIDIAN_MERIDIAN_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <meridian/meridian.h>

#include <meridian/mca/carto/base/base.hpp>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/pnet/base/request.hpp>
#include <meridian/opal/class/coordinate.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/fabric_address.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/class/port_ranges.hpp>
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/mca/base/cmdline.hpp>
#include <meridian/opal/mca/base/component_repository.hpp>
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/param_file.hpp>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/mca/base/param_source.hpp>
#include <meridian/opal/mca/base/param_value.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/result.hpp>
#include <meridian/opal/util/strings.hpp>

#endif
