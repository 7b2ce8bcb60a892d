// SPDX-License-Identifier: BSD-3-Clause
// Pieces the carto_file parser tests share: parse text under a fixed path,
// and show a description (or the error instead of it) as text that one
// ck_assert_text_eq compares whole, so a failure shows both versions.
#ifndef MERIDIAN_TEST_CARTO_FILE_CARTO_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_CARTO_FILE_CARTO_TEST_SUPPORT_HPP

#include <string>
#include <string_view>

#include "components/carto_file/carto_parser.hpp"
#include "test/support/meridian_test.hpp"

namespace carto_test
{

using meridian::Result;
using meridian::carto::CartoDescription;

// The path every parse() names in its messages.
inline constexpr std::string_view test_path = "t.carto";

Result<CartoDescription> parse(std::string_view text);

// An example of contrib/carto in the source tree.
std::string contrib_file(std::string_view name);

// One line per vertex, "NAME TYPE" ("NAME TYPE @LINE:COLUMN" with positions),
// in order; "error: MESSAGE" when parsing failed.
std::string vertices_of(const Result<CartoDescription> &parsed, bool positions = false);

// One line per edge, "FROM->TO:WEIGHT" (with " @LINE:COLUMN"), in order.
std::string edges_of(const Result<CartoDescription> &parsed, bool positions = false);

// The edges sorted, for comparing graphs written in a different order.
std::string sorted_edges_of(const Result<CartoDescription> &parsed);

// The error message, or "parsed without error".
std::string error_of(const Result<CartoDescription> &parsed);

// A file in the test's scratch directory (make_scratch() first).
std::string write_scratch_file(const std::string &name, std::string_view contents);

// A test case whose tests each get a scratch directory.
TCase *make_tcase(const char *name);

} // namespace carto_test

#endif
