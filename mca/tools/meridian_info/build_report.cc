// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_info/build_report.hpp"

#include <boost/version.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "mca/tools/meridian_info/formats.hpp"
#include "opal/runtime/build_config.hpp"

namespace meridian::info
{

namespace
{

// The section headers of the text form.
const char *section_title(const std::string &section)
{
    if (section == "build") {
        return "How it was configured";
    }
    if (section == "dependency") {
        return "Dependencies (as configure found them)";
    }
    if (section == "component") {
        return "Components (as configure decided)";
    }
    if (section == "runtime") {
        return "Running with";
    }
    return nullptr;
}

} // namespace

void write_build_report(Format format, std::string &out)
{
    std::vector<build::Fact> facts = build::facts();
    // The Boost headers libmeridian's command line was compiled with (this
    // tool's are the same build's).
    std::string boost = BOOST_LIB_VERSION;
    std::replace(boost.begin(), boost.end(), '_', '.');
    // After the last dependency configure gave.
    const auto last = std::find_if(facts.rbegin(), facts.rend(), [](const build::Fact &fact) {
        return fact.section == "dependency";
    });
    facts.insert(last.base(), build::Fact{"dependency", "Boost headers", boost});

    switch (format) {
    case Format::text: {
        std::size_t width = 0;
        for (const auto &fact : facts) {
            width = std::max(width, fact.label.size());
        }
        std::string section;
        for (const auto &fact : facts) {
            if (fact.section != section) {
                section = fact.section;
                const char *title = section_title(section);
                out += out.empty() ? "" : "\n";
                out += (title != nullptr ? title : section.c_str());
                out += ":\n";
            }
            out += "  " + fact.label;
            if (!fact.text.empty()) {
                out += std::string(width - fact.label.size() + 2, ' ') + fact.text;
            }
            out += "\n";
        }
        break;
    }
    case Format::parsable:
        for (const auto &fact : facts) {
            out += "config:" + fact.section + ":" + one_line(fact.label) + ":" +
                   one_line(fact.text) + "\n";
        }
        break;
    case Format::json: {
        nlohmann::ordered_json config = nlohmann::ordered_json::object();
        for (const auto &fact : facts) {
            config[fact.section][fact.label] = fact.text;
        }
        out += nlohmann::ordered_json{{"config", config}}.dump(
                   2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
               "\n";
        break;
    }
    }
}

} // namespace meridian::info
