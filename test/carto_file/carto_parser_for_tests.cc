// SPDX-License-Identifier: BSD-3-Clause
// The carto_file parser and graph builder, compiled into the tests from the
// component's sources: the parsing layer is tested without the component
// (and its build wiring) in the way.
#include "components/carto_file/carto_graph_build.cc"
#include "components/carto_file/carto_parser.cc"
