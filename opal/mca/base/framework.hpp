// SPDX-License-Identifier: BSD-3-Clause
// The C++ view of frameworks, for tools that show them (meridian_info) and
// for the framework lifecycle's own pieces.
#ifndef MERIDIAN_MCA_BASE_FRAMEWORK_HPP
#define MERIDIAN_MCA_BASE_FRAMEWORK_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/mca/base/component_repository.hpp>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/result.hpp>

namespace meridian::mca
{

// A parsed selection parameter: "a,b" (only these) or "^a,b" (all but these).
struct Selection {
    bool exclude = false;
    std::vector<std::string> names; // empty: every component

    bool admits(std::string_view component) const;
};

// Parse the value of the selection parameter of a framework.  `where` names
// the value's source for the error message ("environment variable ...",
// SourceRef::where()); empty leaves it out.
Result<Selection> parse_selection(std::string_view framework, std::string_view text,
                                  std::string_view where = {});

// Another name a component answers to in the selection parameter
// (meridian_mca_base_component_alias).
struct ComponentAlias {
    std::string alias;
    std::string component;
};

// A selection naming a component that is not among the available ones (nor
// an alias of one) is an error that lists those, each with its aliases
// ("auto (also: autodetect)"), and the closest name.
Status check_selection(std::string_view framework, const Selection &selection,
                       const std::vector<std::string> &available, std::string_view where = {},
                       const std::vector<ComponentAlias> &aliases = {});

// The selection with each alias replaced by its component's name.
Selection resolve_aliases(Selection selection, const std::vector<ComponentAlias> &aliases);

struct ComponentView {
    const mca_base_component_t *component = nullptr;
    std::string path; // empty: built in
    bool opened = false;
    std::vector<std::string> aliases; // in the order the component declared them
};

// Components of a registered framework, in the order they were found.
std::vector<ComponentView> framework_components(const mca_base_framework_t &framework);

// DSOs of the framework that could not be used, with the reasons.
std::vector<LoadFailure> framework_failures(const mca_base_framework_t &framework);

// The selection parameter's current value checked against the framework's
// registered components (what open would say), without opening anything.
Status validate_selection(const mca_base_framework_t &framework);

// Names of frameworks registered so far.
bool framework_is_registered(std::string_view name);

} // namespace meridian::mca

#endif
