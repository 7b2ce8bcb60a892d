// SPDX-License-Identifier: BSD-3-Clause
// Pieces of the component-loading and framework tests beyond the shared ones
// (test/support/meridian_test.hpp): the test-only frameworks, component
// directories filled with fixture DSOs and the hook-event log the fixtures
// write to.
//
// Every test runs in its own process (Check's fork mode, forced by
// meridian_test::run_suite): the loader, the registry and the frameworks start empty and a
// test may change the process (environment, effective user) freely.  The
// parent process never touches libmeridian.
#ifndef MERIDIAN_TEST_MCA_MCA_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_MCA_MCA_TEST_SUPPORT_HPP

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "test/mca/fixtures/testfw.h"
#include "test/support/meridian_test.hpp"
#include <meridian/opal/mca/base/mca_base_framework.h>

namespace mca_test
{

// The test-only frameworks (see fixtures/testfw.h).  testfw's own hooks log
// "testfw register/open/close" events.  Each test's process starts with
// them unregistered and without static components.
extern mca_base_framework_t testfw;
extern mca_base_framework_t testmulti;

// ---------------------------------------------------------------- events

// Hook calls logged by the fixtures, as "framework/component event"
// ("testfw/alpha open"), and by testfw itself ("testfw open").
std::vector<std::string> &events();
int count_events(std::string_view event);

// ---------------------------------------------------------------- directories

// A fresh directory under the test's scratch directory (mode 0755, so a test
// that drops root can still read it).
class ComponentDir
{
  public:
    explicit ComponentDir(std::string_view name);

    const std::string &path() const { return path_; }
    // path()/name
    std::string file(std::string_view name) const;

    // Copy fixtures/<fixture> in as `as` (default: the same name), mode 0644.
    std::string add(std::string_view fixture, std::string_view as = {}) const;
    std::string add_text(std::string_view name, std::string_view contents) const;
    std::string add_directory(std::string_view name) const;
    std::string add_symlink(std::string_view name, const std::string &target) const;

  private:
    std::string path_;
};

// Where the built fixture DSOs are (the build tree's test/mca/fixtures).
std::string fixture_dir();

// ---------------------------------------------------------------- parameters

// Open the MCA base (core parameters registered) if needed and set a
// registered parameter through the API; fails the test when refused.
void set_param(const std::string &full_name, const std::string &value);
// mca_base_component_path = the directories, ':'-separated.
void use_component_path(std::initializer_list<std::string> directories);

// ---------------------------------------------------------------- frameworks

// "name=path" for each component of a registered framework, in the order
// found ("name=" for built-in ones), joined by ", ".
std::string components_of(const mca_base_framework_t &framework);
// Names of the components whose open succeeded, joined by ", ".
std::string opened_of(const mca_base_framework_t &framework);
// "component: reason" for each load failure, joined by "\n".
std::string failures_of(const mca_base_framework_t &framework);
// The module's name(), for a module of fixtures/testfw.h.
std::string module_name(const mca_base_module_t *module);
// Whether the DSO at path is mapped into the process now.
bool dso_is_loaded(const std::string &path);

// ---------------------------------------------------------------- running

// A test case with the standard fixtures: a scratch directory as HOME, no
// inherited MCA settings, messages captured, an empty event log.
TCase *make_tcase(const char *name);

} // namespace mca_test

#endif
