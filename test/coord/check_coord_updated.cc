// SPDX-License-Identifier: BSD-3-Clause
// The coordinates-updated event: callbacks registered per plane (by name or
// CIDR, or for all); placing a changed fabric calls each with only the
// changed planes it registered for, after the coordinates are refreshed; an
// unchanged fabric, the first placement, and removed callbacks call nothing.
#include <string>
#include <vector>

#include "test/coord/coord_test_support.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/opal/util/error.h>

using namespace coord_test;
using meridian_test::messages;
namespace coord = meridian::coord;

namespace
{

// n3:eth0 on switch d1; `moved` puts it on d0 (only plane data changes).
std::string fabric_text(bool moved, bool with_mgmt_change = false)
{
    return std::string(R"(plane data cidr=10.10.0.0/16
switch d0 plane=data
switch d1 plane=data
plane mgmt cidr=10.20.0.0/16
switch m0 plane=mgmt
switch m1 plane=mgmt
plane ib type=infiniband shape=4
node n1
node n2
node n3
nic n1 eth0 plane=data address=10.10.0.1 switch=d0
nic n2 eth0 plane=data address=10.10.0.2 switch=d0
nic n3 eth0 plane=data address=10.10.0.3 switch=)") +
           (moved ? "d0" : "d1") + R"(
nic n1 mgmt0 plane=mgmt address=10.20.0.1 switch=m0
nic n2 mgmt0 plane=mgmt address=10.20.0.2 switch=m0
nic n3 mgmt0 plane=mgmt address=10.20.0.3 switch=)" +
           (with_mgmt_change ? "m0" : "m1") + R"(
nic n1 ib0 plane=ib
nic n2 ib0 plane=ib
nic n3 ib0 plane=ib
)";
}

struct Calls {
    std::vector<std::string> log; // "who:plane+plane", one per call
};

void place_text(const std::string &text)
{
    const auto fabric = fabric_of(text);
    place(fabric, job_of(*fabric, "n1:1,n2:1,n3:1", meridian::fabric::Binding::none));
}

START_TEST(only_changed_planes_only_registered_ones)
{
    start();
    Calls calls;
    std::string seen_in_callback;
    const auto record = [&calls](std::string who) {
        return [&calls, who](std::span<const std::string> planes) {
            std::string names;
            for (const auto &p : planes) {
                names += (names.empty() ? "" : "+") + p;
            }
            calls.log.push_back(who + ":" + names);
        };
    };
    const int data = coord::on_updated("data", record("data"));
    const int mgmt = coord::on_updated("mgmt", record("mgmt"));
    const int all = coord::on_updated("", record("all"));
    const int by_cidr = coord::on_updated("10.10.0.0/16", record("cidr"));
    const int refresh =
        coord::on_updated("data", [&seen_in_callback](std::span<const std::string>) {
            seen_in_callback = coords_of(2, "data");
        });
    ck_assert_int_ge(data, 0);
    ck_assert_int_ne(data, mgmt);

    place_text(fabric_text(false)); // the first placement: nothing to update
    ck_assert_uint_eq(calls.log.size(), 0);
    ck_assert_text_eq(coords_of(2, "data"), "data:logical:(0,1,0)");

    place_text(fabric_text(false)); // the same again: nothing changed
    ck_assert_uint_eq(calls.log.size(), 0);

    place_text(fabric_text(true)); // n3:eth0 moves to d0
    ck_assert_text_eq(joined(calls.log), "data:data,all:data,cidr:data");
    // The callback saw the new coordinates, and so does everyone after.
    ck_assert_text_eq(seen_in_callback, "data:logical:(0,0,0)");
    ck_assert_text_eq(coords_of(2, "data"), "data:logical:(0,0,0)");
    ck_assert_uint_eq(nic_hops("n1:eth0", "n3:eth0"), 2); // now one switch

    calls.log.clear();
    coord::remove_updated(data);
    coord::remove_updated(refresh);
    place_text(fabric_text(false, true)); // data back, mgmt changes too
    ck_assert_text_eq(joined(calls.log), "mgmt:mgmt,all:data+mgmt,cidr:data");
    coord::remove_updated(mgmt);
    coord::remove_updated(all);
    coord::remove_updated(by_cidr);
    ck_assert_no_messages();
}
END_TEST

START_TEST(planes_that_come_and_go)
{
    start();
    std::vector<std::string> log;
    coord::on_updated("", [&log](std::span<const std::string> planes) {
        for (const auto &p : planes) {
            log.push_back(p);
        }
    });
    place_text(fabric_text(false));
    // mgmt and ib gone, a new plane "extra": all three are affected; and
    // data, whose x dimension shrinks (n1 has 2 NICs now, not 3).
    const auto fabric = fabric_of(R"(plane data cidr=10.10.0.0/16
switch d0 plane=data
switch d1 plane=data
plane extra
node n1
node n2
node n3
nic n1 eth0 plane=data address=10.10.0.1 switch=d0
nic n2 eth0 plane=data address=10.10.0.2 switch=d0
nic n3 eth0 plane=data address=10.10.0.3 switch=d1
nic n1 x0 plane=extra
)");
    place(fabric, job_of(*fabric, "n1:1,n2:1,n3:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(joined(log), "data,extra,mgmt,ib");
    ck_assert_text_eq(shape_of("data"), "2x2x1");
}
END_TEST

START_TEST(a_new_job_changes_the_logical_view)
{
    start();
    std::vector<std::string> log;
    coord::on_updated("ib", [&log](std::span<const std::string> planes) {
        log.assign(planes.begin(), planes.end());
    });
    const auto fabric = fabric_of(fabric_text(false));
    place(fabric, job_of(*fabric, "n1:1,n2:1,n3:1", meridian::fabric::Binding::none));
    place(fabric, job_of(*fabric, "n3:1,n2:1,n1:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(joined(log), "ib"); // torus: logical order follows the ranks
    ck_assert_text_eq(coords_of(0, "ib"), "ib:logical:(0)");
}
END_TEST

struct CRecord {
    std::vector<std::string> planes;
    int calls = 0;
};

void c_callback(const char *const *planes, size_t count, void *context)
{
    auto *record = static_cast<CRecord *>(context);
    ++record->calls;
    for (size_t i = 0; i < count; ++i) {
        record->planes.emplace_back(planes[i]);
    }
}

START_TEST(c_registration)
{
    start();
    CRecord mgmt_record;
    CRecord data_record;
    int mgmt_handle = -1;
    int data_handle = -1;
    ck_assert_int_eq(
        meridian_coord_register_updated("mgmt", c_callback, &mgmt_record, &mgmt_handle),
        MERIDIAN_SUCCESS);
    ck_assert_int_eq(
        meridian_coord_register_updated("data", c_callback, &data_record, &data_handle),
        MERIDIAN_SUCCESS);
    place_text(fabric_text(false));
    place_text(fabric_text(true));
    ck_assert_int_eq(mgmt_record.calls, 0);
    ck_assert_int_eq(data_record.calls, 1);
    ck_assert_text_eq(joined(data_record.planes), "data");
    ck_assert_int_eq(meridian_coord_deregister_updated(data_handle), MERIDIAN_SUCCESS);
    place_text(fabric_text(false, true));
    ck_assert_int_eq(data_record.calls, 1);
    ck_assert_int_eq(mgmt_record.calls, 1);
    ck_assert_text_eq(joined(mgmt_record.planes), "mgmt");
    ck_assert_int_eq(meridian_coord_deregister_updated(mgmt_handle), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_coord_register_updated(nullptr, nullptr, nullptr, &mgmt_handle),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("meridian_coord_register_updated: fn is NULL"));
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_updated");
    TCase *tcase = make_tcase("updated");
    tcase_add_test(tcase, only_changed_planes_only_registered_ones);
    tcase_add_test(tcase, planes_that_come_and_go);
    tcase_add_test(tcase, a_new_job_changes_the_logical_view);
    tcase_add_test(tcase, c_registration);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}
