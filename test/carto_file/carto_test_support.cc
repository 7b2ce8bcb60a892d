// SPDX-License-Identifier: BSD-3-Clause
#include "test/carto_file/carto_test_support.hpp"

#include <algorithm>
#include <fstream>
#include <vector>

namespace carto_test
{

namespace
{

void setup()
{
    meridian_test::make_scratch("carto");
}

std::string joined(std::vector<std::string> lines)
{
    std::string out;
    for (const auto &line : lines) {
        out += line;
        out += '\n';
    }
    return out;
}

std::string at(std::size_t line, std::size_t column)
{
    return " @" + std::to_string(line) + ":" + std::to_string(column);
}

} // namespace

Result<CartoDescription> parse(std::string_view text)
{
    return meridian::carto::parse_carto(test_path, text);
}

std::string contrib_file(std::string_view name)
{
    return std::string(CARTO_CONTRIB_DIR) + "/" + std::string(name);
}

std::string vertices_of(const Result<CartoDescription> &parsed, bool positions)
{
    if (!parsed) {
        return "error: " + parsed.error().message;
    }
    std::vector<std::string> lines;
    for (const auto &vertex : parsed->vertices) {
        lines.push_back(vertex.name + " " +
                        std::string(meridian::carto::vertex_type_name(vertex.type)) +
                        (positions ? at(vertex.line, vertex.column) : ""));
    }
    return joined(lines);
}

std::string edges_of(const Result<CartoDescription> &parsed, bool positions)
{
    if (!parsed) {
        return "error: " + parsed.error().message;
    }
    std::vector<std::string> lines;
    for (const auto &edge : parsed->edges) {
        lines.push_back(edge.from + "->" + edge.to + ":" + std::to_string(edge.weight) +
                        (positions ? at(edge.line, edge.column) : ""));
    }
    return joined(lines);
}

std::string sorted_edges_of(const Result<CartoDescription> &parsed)
{
    if (!parsed) {
        return "error: " + parsed.error().message;
    }
    std::vector<std::string> lines;
    for (const auto &edge : parsed->edges) {
        lines.push_back(edge.from + "->" + edge.to + ":" + std::to_string(edge.weight));
    }
    std::sort(lines.begin(), lines.end());
    return joined(lines);
}

std::string error_of(const Result<CartoDescription> &parsed)
{
    return parsed ? "parsed without error" : parsed.error().message;
}

std::string write_scratch_file(const std::string &name, std::string_view contents)
{
    const std::string path = meridian_test::scratch() + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    ck_assert_msg(out.good(), "cannot write %s", path.c_str());
    return path;
}

TCase *make_tcase(const char *name)
{
    TCase *tcase = tcase_create(name);
    tcase_add_unchecked_fixture(
        tcase, [] { meridian_test::make_scratch_root("carto-file-test"); },
        meridian_test::remove_scratch_root);
    tcase_add_checked_fixture(tcase, setup, nullptr);
    return tcase;
}

} // namespace carto_test
