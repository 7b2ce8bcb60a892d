// SPDX-License-Identifier: BSD-3-Clause
// coord_torus's parsers and arithmetic, compiled into the tests from the
// component's sources: tested without the component in the way.
#include "components/coord_torus/coord_torus_shape.cc"
