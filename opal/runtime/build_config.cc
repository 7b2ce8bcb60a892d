// SPDX-License-Identifier: BSD-3-Clause
#include "config.h"

#include "opal/runtime/build_config.hpp"

#if MERIDIAN_HAVE_PMIX
#include <pmix.h>
#endif

namespace meridian::build
{

namespace
{

struct Recorded {
    const char *section;
    const char *label;
    const char *text;
};

// configure's (config/meridian.m4, MERIDIAN_WRITE_BUILD_FACTS).
constexpr Recorded recorded[] = {
#include "meridian_build_facts.h"
};

} // namespace

std::vector<Fact> facts()
{
    std::vector<Fact> out;
    out.reserve(std::size(recorded) + 1);
    for (const auto &fact : recorded) {
        out.push_back(Fact{fact.section, fact.label, fact.text});
    }
#if MERIDIAN_HAVE_PMIX
    // The libpmix this process runs with, which may not be the one configure
    // found (a site's own, through the library path).
    out.push_back(Fact{"runtime", "PMIx", PMIx_Get_version()});
#endif
    return out;
}

} // namespace meridian::build
