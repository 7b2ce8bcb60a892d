// SPDX-License-Identifier: BSD-3-Clause
// What the coord tests share: each test's process isolated (scratch HOME, no
// inherited MCA settings, the coord components from the build tree, messages
// captured), a fabric from text and a job map placed with set_context, and
// coordinates shown as text so one comparison shows both versions.
#ifndef MERIDIAN_TEST_COORD_COORD_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_COORD_COORD_TEST_SUPPORT_HPP

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>

namespace coord_test
{

using Setting = std::pair<std::string, std::string>;

// meridian_init with these parameters in the environment (the components'
// path is set already).  Fails the test when init fails.
void start(const std::vector<Setting> &settings = {});

// Parse fabric text (fails the test on a parse error, showing it).
std::shared_ptr<const meridian::fabric::Fabric> fabric_of(std::string_view text);
// make_job_map(fabric, hosts, binding) (fails the test on an error).
std::shared_ptr<const meridian::fabric::JobMap>
job_of(const meridian::fabric::Fabric &fabric, std::string_view hosts,
       meridian::fabric::Binding binding = meridian::fabric::Binding::package);

// set_context, failing the test (with the message) when it fails.
void place(std::shared_ptr<const meridian::fabric::Fabric> fabric,
           std::shared_ptr<const meridian::fabric::JobMap> job);

// "plane:view:(x,y,z) plane:view:(...)" for a rank's coordinates, or
// "error N: MESSAGE".
std::string coords_of(std::uint32_t rank, std::string_view plane = {},
                      meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);
// The cost as a number, or "error N: MESSAGE".
std::string cost_of(std::uint32_t from, std::uint32_t to);
// "3x2x2", or "error N: MESSAGE".
std::string shape_of(std::string_view plane,
                     meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);

// The NIC "node:nic" of the current context.
std::uint32_t nic_index(std::string_view node, std::string_view nic);
// The hops between two NICs of one plane, from the module that placed it.
std::uint64_t nic_hops(std::string_view a, std::string_view b); // "node:nic"

// "a,b,c"
std::string joined(const std::vector<std::string> &parts);
std::string joined(const std::vector<std::uint32_t> &values);

// A test case whose tests each run isolated, with meridian_finalize after.
TCase *make_tcase(const char *name);

} // namespace coord_test

#endif
