// SPDX-License-Identifier: BSD-3-Clause
// Reads meridian_info --json on standard input and prints the same facts in
// the --parsable form, so a test can compare the two outputs line by line.
// Written against the documented formats, not against meridian_info's code:
// a fact one format has and the other lacks shows up as a difference.
// Exit status 2 when the input is not JSON or lacks a documented member.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

using Json = nlohmann::json;

namespace
{

std::string out;

// The parsable form's escaping of free text.
std::string one_line(const std::string &text)
{
    std::string escaped;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\') {
            escaped += "\\\\";
        } else if (c == '\n') {
            escaped += "\\n";
        } else if (c == '\r') {
            escaped += "\\r";
        } else if (c == '\t') {
            escaped += "\\t";
        } else if (byte < 0x20 || byte == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", byte);
            escaped += hex;
        } else {
            escaped += c;
        }
    }
    return escaped;
}

void fact(const std::string &prefix, const std::string &key, const std::string &text)
{
    out += prefix + key + ":" + one_line(text) + "\n";
}

std::string number(const Json &value)
{
    return value.is_number_integer() ? std::to_string(value.get<long long>()) : value.dump();
}

void params(const std::string &framework, const std::string &component, const Json &list)
{
    for (const auto &p : list) {
        const std::string prefix = "mca:" + framework + ":" + component +
                                   ":param:" + p.at("name").get<std::string>() + ":";
        fact(prefix, "value", p.at("value").is_null() ? "" : p.at("value").get<std::string>());
        fact(prefix, "source", p.at("source").get<std::string>());
        fact(prefix, "level", std::to_string(p.at("level").get<int>()));
        fact(prefix, "type", p.at("type").get<std::string>());
        if (!p.at("help").get<std::string>().empty()) {
            fact(prefix, "help", p.at("help").get<std::string>());
        }
        for (const auto &e : p.value("enumerators", Json::array())) {
            fact(prefix, "enumerator:value",
                 std::to_string(e.at("value").get<int>()) + ":" + e.at("name").get<std::string>());
        }
        if (p.contains("minimum")) {
            fact(prefix, "minimum", number(p.at("minimum")));
        }
        if (p.contains("maximum")) {
            fact(prefix, "maximum", number(p.at("maximum")));
        }
        fact(prefix, "deprecated", p.at("deprecated").get<bool>() ? "yes" : "no");
        fact(prefix, "status", p.at("status").get<std::string>());
        fact(prefix, "settable-in-files", p.at("settable_in_files").get<bool>() ? "yes" : "no");
        for (const auto &s : p.value("synonyms", Json::array())) {
            fact(prefix, "synonym:name", s.at("name").get<std::string>());
            if (s.at("deprecated").get<bool>()) {
                fact(prefix, "synonym:deprecated", s.at("name").get<std::string>());
            }
        }
    }
}

void convert(const Json &doc)
{
    fact("meridian:version:", "full", doc.at("version").get<std::string>());
    fact("meridian:version:", "mca", doc.at("mca_abi").get<std::string>());
    if (doc.contains("paths")) {
        const auto &p = doc.at("paths");
        for (const char *key : {"prefix", "libdir", "pkglibdir", "sysconfdir", "includedir"}) {
            fact("path:", key, p.at(key).get<std::string>());
        }
        for (const auto &dir : p.at("component_path")) {
            fact("path:", "component_path", dir.get<std::string>());
        }
        for (const auto &file : p.at("param_files")) {
            fact("path:", "param_file", file.get<std::string>());
        }
        for (const auto &file : p.at("override_param_files")) {
            fact("path:", "override_param_file", file.get<std::string>());
        }
    }
    if (doc.contains("core")) {
        params("mca", "base", doc.at("core").at("params"));
    }
    for (const auto &fw : doc.at("frameworks")) {
        const std::string name = fw.at("name").get<std::string>();
        const std::string base = "mca:" + name + ":base:";
        fact(base, "description", fw.at("description").get<std::string>());
        fact(base, "version:api", fw.at("api_version").get<std::string>());
        std::string names;
        for (const auto &c : fw.at("component_names")) {
            names += (names.empty() ? "" : ",") + c.get<std::string>();
        }
        fact(base, "components", names.empty() ? "none" : names);
        params(name, "base", fw.value("params", Json::array()));
        for (const auto &c : fw.at("components")) {
            const std::string component = c.at("name").get<std::string>();
            const std::string prefix = "mca:" + name + ":" + component + ":";
            fact(prefix, "version:mca", c.at("mca_version").get<std::string>());
            fact(prefix, "version:api", c.at("api_version").get<std::string>());
            fact(prefix, "version:component", c.at("version").get<std::string>());
            fact(prefix, "path", c.at("path").get<std::string>());
            std::string aliases;
            for (const auto &a : c.value("aliases", Json::array())) {
                aliases += (aliases.empty() ? "" : ",") + a.get<std::string>();
            }
            if (!aliases.empty()) {
                fact(prefix, "aliases", aliases);
            }
            params(name, component, c.value("params", Json::array()));
        }
        for (const auto &f : fw.value("failed", Json::array())) {
            const std::string prefix =
                "mca:" + name + ":" + f.at("component").get<std::string>() + ":";
            fact(prefix, "failed-path", f.at("path").get<std::string>());
            fact(prefix, "failed", f.at("reason").get<std::string>());
        }
    }
    for (const auto &group : doc.value("other_params", Json::array())) {
        params(group.at("framework").get<std::string>(), group.at("component").get<std::string>(),
               group.at("params"));
    }
}

} // namespace

int main()
{
    const std::string text{std::istreambuf_iterator<char>(std::cin),
                           std::istreambuf_iterator<char>()};
    try {
        convert(Json::parse(text));
    } catch (const Json::exception &e) {
        std::cerr << "json_facts: " << e.what() << "\n";
        return 2;
    }
    std::cout << out;
    return 0;
}
