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

Status check_selection(std::string_view framework, const Selection &selection,
                       const std::vector<std::string> &available, std::string_view where)
{
    for (const auto &name : selection.names) {
        if (std::find(available.begin(), available.end(), name) != available.end()) {
            continue;
        }
        std::string message =
            "MCA parameter " + std::string(framework) +
            (where.empty() ? std::string() : " (from " + std::string(where) + ")") +
            " names component " + util::quoted(name) + ", which is not available; available " +
            std::string(framework) + " components: " +
            (available.empty() ? std::string("none") : util::join(available, ", "));
        if (const auto suggestion = util::closest_match(name, available)) {
            message += " (did you mean " + *suggestion + "?)";
        }
        return make_error(MERIDIAN_ERR_NOT_FOUND, message);
    }
    return success();
}

} // namespace meridian::mca
