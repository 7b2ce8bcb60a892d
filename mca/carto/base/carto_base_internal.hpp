// SPDX-License-Identifier: BSD-3-Clause
// What the carto base's files share; not installed.
#ifndef MERIDIAN_MCA_CARTO_BASE_INTERNAL_HPP
#define MERIDIAN_MCA_CARTO_BASE_INTERNAL_HPP

#include <meridian/mca/carto/base/base.hpp>

namespace meridian::carto
{

// MERIDIAN_SUCCESS for a non-empty mask within MCA_CARTO_ALL; otherwise
// MERIDIAN_ERR_BAD_PARAM, reported with the valid types.
int check_type_mask(unsigned int types);

// Move graph into a new C handle; MERIDIAN_ERR_OUT_OF_RESOURCE when memory runs out.
int hand_out(WeightedGraph graph, mca_carto_graph_t **handle);

// The framework's close hook: forget the map.
int framework_closing();

} // namespace meridian::carto

#endif
