// SPDX-License-Identifier: BSD-3-Clause
// Pieces of the parameter unit tests beyond the shared ones
// (test/support/meridian_test.hpp): the standard fixtures and short ways to
// set a parameter from a source and to read where its value came from.
//
// Every test runs in its own process (Check's fork mode), so the registry and
// the message sink start empty; the parent process never touches libmeridian.
#ifndef MERIDIAN_TEST_PARAMS_PARAM_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_PARAMS_PARAM_TEST_SUPPORT_HPP

#include <string>
#include <string_view>
#include <vector>

#include "test/support/meridian_test.hpp"

namespace param_test
{

// Checked fixture: captures messages, gives the test a scratch directory as
// HOME, reads no param files and finds no component DSOs.
void setup();
void teardown();

// Unchecked fixtures (parent process): the directory the scratch
// directories live in, removed with everything in it afterwards.
void setup_root();
void teardown_root();

// A file written in the test's scratch directory (returns its path).
std::string write_file(const std::string &name, std::string_view contents);

// Param::source().describe() of a registered parameter.
std::string source_of(const std::string &full_name);

// Runs meridian_mca_base_cmdline_apply on a copy of args (args[0] is the program) and
// keeps what is left in `left`.
struct CommandLine {
    int status = 0;
    std::vector<std::string> left;
};
CommandLine apply_command_line(const std::vector<std::string> &args);

// A test case with the standard fixtures.
TCase *make_tcase(const char *name);

} // namespace param_test

#endif
