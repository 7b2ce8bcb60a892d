// SPDX-License-Identifier: BSD-3-Clause
// The carto_file parser and graph builder, compiled into the corpus program
// from the component's sources (the component itself need not be built).
#include "components/carto_file/carto_graph_build.cc"
#include "components/carto_file/carto_parser.cc"
