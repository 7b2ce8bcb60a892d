// SPDX-License-Identifier: BSD-3-Clause
#include "test/coord/coord_test_support.hpp"

#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>

namespace coord_test
{

namespace
{

void setup()
{
    meridian_test::make_scratch("coord-test");
    meridian_test::isolate_mca_environment();
    meridian_test::set_param_env("mca_base_component_path", COORD_COMPONENT_PATH);
    // These tests place their fabrics by hand: no in-job run placing this
    // host on the first query that finds no context.
    meridian_test::set_param_env("pnet_base_in_job", "no");
    meridian_test::capture_messages();
}

void teardown()
{
    meridian::coord::forget_context();
    meridian_finalize();
}

std::string error_text(const meridian::Error &error)
{
    return "error " + std::to_string(error.status) + ": " + error.message;
}

} // namespace

void start(const std::vector<Setting> &settings)
{
    for (const auto &[name, value] : settings) {
        meridian_test::set_param_env(name, value);
    }
    const int rc = meridian_init(nullptr, nullptr);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "meridian_init: %s", meridian_strerror(rc));
}

std::shared_ptr<const meridian::fabric::Fabric> fabric_of(std::string_view text)
{
    auto parsed = meridian::fabric::parse_fabric(text, "t.fabric");
    ck_assert_msg(parsed.ok(), "fabric: %s", parsed.ok() ? "" : parsed.error().message.c_str());
    return std::make_shared<const meridian::fabric::Fabric>(std::move(*parsed));
}

std::shared_ptr<const meridian::fabric::JobMap> job_of(const meridian::fabric::Fabric &fabric,
                                                       std::string_view hosts,
                                                       meridian::fabric::Binding binding)
{
    auto job = meridian::fabric::make_job_map(fabric, hosts, binding, "hosts");
    ck_assert_msg(job.ok(), "job map: %s", job.ok() ? "" : job.error().message.c_str());
    return std::make_shared<const meridian::fabric::JobMap>(std::move(*job));
}

void place(std::shared_ptr<const meridian::fabric::Fabric> fabric,
           std::shared_ptr<const meridian::fabric::JobMap> job)
{
    const auto placed = meridian::coord::set_context(std::move(fabric), std::move(job));
    ck_assert_msg(placed.ok(), "set_context: %s",
                  placed.ok() ? "" : placed.error().message.c_str());
}

std::string coords_of(std::uint32_t rank, std::string_view plane, meridian_coord_view_t view)
{
    const auto coords = meridian::coord::coordinates(rank, plane, view);
    if (!coords) {
        return error_text(coords.error());
    }
    std::string text;
    for (const auto &c : *coords) {
        text += (text.empty() ? "" : " ") + c.plane + ":" + meridian::view_name(c.view) + ":" +
                meridian::format_coord(c.coord);
    }
    return text;
}

std::string cost_of(std::uint32_t from, std::uint32_t to)
{
    const auto cost = meridian::coord::cost(from, to);
    return cost ? std::to_string(*cost) : error_text(cost.error());
}

std::string shape_of(std::string_view plane, meridian_coord_view_t view)
{
    const auto shape = meridian::coord::shape(plane, view);
    if (!shape) {
        return error_text(shape.error());
    }
    std::string text;
    for (const auto size : *shape) {
        text += (text.empty() ? "" : "x") + std::to_string(size);
    }
    return text;
}

std::uint32_t nic_index(std::string_view node, std::string_view nic)
{
    const auto *context = meridian::coord::context();
    ck_assert_ptr_nonnull(context);
    const auto n = context->fabric->find_node(node);
    ck_assert_msg(n.has_value(), "no node %s", std::string(node).c_str());
    const auto i = context->fabric->find_nic(*n, nic);
    ck_assert_msg(i.has_value(), "no NIC %s:%s", std::string(node).c_str(),
                  std::string(nic).c_str());
    return *i;
}

std::uint64_t nic_hops(std::string_view a, std::string_view b)
{
    const auto split = [](std::string_view label) {
        const auto colon = label.find(':');
        return std::pair{label.substr(0, colon), label.substr(colon + 1)};
    };
    const auto [node_a, name_a] = split(a);
    const auto [node_b, name_b] = split(b);
    const std::uint32_t x = nic_index(node_a, name_a);
    const std::uint32_t y = nic_index(node_b, name_b);
    const auto *context = meridian::coord::context();
    const auto &table = context->planes[context->fabric->nics()[x].plane];
    ck_assert_ptr_nonnull(table.module);
    std::uint64_t hops = 999;
    ck_assert_int_eq(table.module->nic_cost(table.module, context, x, y, &hops), MERIDIAN_SUCCESS);
    return hops;
}

std::string joined(const std::vector<std::string> &parts)
{
    std::string text;
    for (const auto &part : parts) {
        text += (text.empty() ? "" : ",") + part;
    }
    return text;
}

std::string joined(const std::vector<std::uint32_t> &values)
{
    std::string text;
    for (size_t i = 0; i < values.size(); ++i) {
        text += (i > 0 ? "," : "") + std::to_string(values[i]);
    }
    return text;
}

TCase *make_tcase(const char *name)
{
    TCase *tcase = tcase_create(name);
    tcase_add_unchecked_fixture(
        tcase, [] { meridian_test::make_scratch_root("coord-test"); },
        meridian_test::remove_scratch_root);
    tcase_add_checked_fixture(tcase, setup, teardown);
    return tcase;
}

} // namespace coord_test
