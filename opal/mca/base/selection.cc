// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>

#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::mca
{

bool Selection::admits(std::string_view component) const
{
    if (names.empty()) {
        return true;
    }
    const bool listed = std::find(names.begin(), names.end(), component) != names.end();
    return exclude ? !listed : listed;
}

Result<Selection> parse_selection(std::string_view framework, std::string_view text,
                                  std::string_view where)
{
    Selection selection;
    std::string_view list = util::trim(text);
    if (list.empty()) {
        return selection;
    }
    const auto bad = [&](const std::string &why) {
        return make_error(
            MERIDIAN_ERR_BAD_PARAM,
            "bad value " + util::quoted(text) + " for MCA parameter " + std::string(framework) +
                (where.empty() ? std::string() : " from " + std::string(where)) + ": " + why);
    };
    if (list.front() == '^') {
        selection.exclude = true;
        list.remove_prefix(1);
    }
    for (const auto &item : util::split(list, ',')) {
        const auto name = util::trim(item);
        if (name.empty()) {
            return bad("expected a comma-separated list of component names, found an empty item");
        }
        if (name.find('^') != std::string_view::npos) {
            return bad("'^' may only start the list, where it excludes every component listed");
        }
        selection.names.emplace_back(name);
    }
    return selection;
}

namespace
{

const ComponentAlias *find_alias(const std::vector<ComponentAlias> &aliases, std::string_view name)
{
    const auto it = std::find_if(aliases.begin(), aliases.end(),
                                 [name](const ComponentAlias &a) { return a.alias == name; });
    return it == aliases.end() ? nullptr : &*it;
}

// "auto (also: autodetect), file"
std::string listing(const std::vector<std::string> &available,
                    const std::vector<ComponentAlias> &aliases)
{
    std::vector<std::string> items;
    for (const auto &name : available) {
        std::vector<std::string> also;
        for (const auto &a : aliases) {
            if (a.component == name) {
                also.push_back(a.alias);
            }
        }
        items.push_back(also.empty() ? name : name + " (also: " + util::join(also, ", ") + ")");
    }
    return items.empty() ? std::string("none") : util::join(items, ", ");
}

} // namespace

Status check_selection(std::string_view framework, const Selection &selection,
                       const std::vector<std::string> &available, std::string_view where,
                       const std::vector<ComponentAlias> &aliases)
{
    for (const auto &name : selection.names) {
        if (std::find(available.begin(), available.end(), name) != available.end()) {
            continue;
        }
        if (const auto *alias = find_alias(aliases, name);
            alias != nullptr &&
            std::find(available.begin(), available.end(), alias->component) != available.end()) {
            continue;
        }
        std::string message =
            "MCA parameter " + std::string(framework) +
            (where.empty() ? std::string() : " (from " + std::string(where) + ")") +
            " names component " + util::quoted(name) + ", which is not available; available " +
            std::string(framework) + " components: " + listing(available, aliases);
        std::vector<std::string> known = available;
        for (const auto &a : aliases) {
            known.push_back(a.alias);
        }
        if (const auto suggestion = util::closest_match(name, known)) {
            message += " (did you mean " + *suggestion + "?)";
        }
        return make_error(MERIDIAN_ERR_NOT_FOUND, message);
    }
    return success();
}

Selection resolve_aliases(Selection selection, const std::vector<ComponentAlias> &aliases)
{
    for (auto &name : selection.names) {
        if (const auto *alias = find_alias(aliases, name)) {
            name = alias->component;
        }
    }
    return selection;
}

} // namespace meridian::mca
