// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto's DOT writer, compiled into check_carto_dot from the tool's
// source: the tool is a program, not a library to link.
#include "mca/tools/meridian_carto/dot.cc"
