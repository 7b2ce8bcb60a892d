// SPDX-License-Identifier: BSD-3-Clause
/*
 * Included first by every C++ header Meridian installs: they use C++20
 * (std::span, concepts, designated initialisers), so an older standard is
 * told so here rather than by an error deep inside a header.
 */
#ifndef MERIDIAN_UTIL_REQUIRE_CXX20_HPP
#define MERIDIAN_UTIL_REQUIRE_CXX20_HPP

#if !defined(__cplusplus) || __cplusplus < 202002L
#error                                                                                             \
    "Meridian's C++ headers need C++20: compile with -std=c++20 (g++ 11, clang 14 or later), or use the C API in <meridian/meridian.h>"
#endif

#endif
