// SPDX-License-Identifier: BSD-3-Clause
// Allocation requests: the text form with every message, "required" and
// "!", several requests, the writer's round trip, and rates.
#include <cmath>
#include <string>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/pnet/base/request.hpp>
#include <meridian/opal/class/fabric.hpp>

using namespace meridian::pnet;
using meridian::fabric::format_rate_mbps;
using meridian::fabric::parse_rate_mbps;

namespace
{

std::string error_of(std::string_view text, std::uint32_t column = 1)
{
    auto parsed = parse_request(text, "--request", column);
    return parsed ? std::string("parsed without error") : parsed.error().message;
}

std::string errors_of(std::string_view text)
{
    auto parsed = parse_requests(text, "pnet_base_requests (environment)");
    return parsed ? std::string("parsed without error") : parsed.error().message;
}

std::string reformatted(std::string_view text)
{
    auto parsed = parse_request(text, "r");
    if (!parsed) {
        return "error: " + parsed.error().message;
    }
    const std::string written = format_request(*parsed);
    auto again = parse_request(written, "r");
    if (!again || !(*again == *parsed)) {
        return "does not read back: " + written;
    }
    return written;
}

} // namespace

START_TEST(a_full_request)
{
    auto parsed =
        parse_request("id=tcp-net,type=tcp,endpts=2,plane=10.10.0.0/16,seckey,qos=3,bw=10G", "r");
    ck_assert(parsed.ok());
    const Request &r = *parsed;
    ck_assert_text_eq(r.id, "tcp-net");
    ck_assert_text_eq(r.type->value, "tcp");
    ck_assert(!r.type->required);
    ck_assert_text_eq(r.plane->value, "10.10.0.0/16");
    ck_assert_uint_eq(r.endpts->value, 2);
    ck_assert_uint_eq(r.seckey_bytes->value, 16);
    ck_assert_uint_eq(r.qos->value, 3);
    ck_assert(r.bandwidth_mbps->value == 10000.0);
    // Only an id: everything else is left to the defaults.
    auto bare = parse_request(" id = a ", "r");
    ck_assert_text_eq(bare->id, "a");
    ck_assert(!bare->type && !bare->plane && !bare->endpts && !bare->seckey_bytes && !bare->qos &&
              !bare->bandwidth_mbps);
}
END_TEST

START_TEST(required_flags)
{
    auto all = parse_request("id=x,type=tcp,required,endpts=4", "r");
    ck_assert(all->type->required);
    ck_assert(all->endpts->required);
    auto one = parse_request("id=x,type=tcp,endpts=4!,seckey=32!,bw=1Gbps", "r");
    ck_assert(!one->type->required);
    ck_assert(one->endpts->required);
    ck_assert_uint_eq(one->seckey_bytes->value, 32);
    ck_assert(one->seckey_bytes->required);
    ck_assert(!one->bandwidth_mbps->required);
    auto bare_key = parse_request("id=x,seckey!", "r");
    ck_assert_uint_eq(bare_key->seckey_bytes->value, 16);
    ck_assert(bare_key->seckey_bytes->required);
}
END_TEST

START_TEST(every_error)
{
    ck_assert_text_eq(error_of("id=a,endpt=2"),
                      "--request:6: expected a request key (id, type, plane, endpts, seckey, qos, "
                      "bw, required), found \"endpt\"");
    ck_assert_text_eq(error_of("id=a,endpts=0"),
                      "--request:13: expected endpts=N with N 1-65535, found \"0\"");
    ck_assert_text_eq(error_of("id=a,endpts=65536"),
                      "--request:13: expected endpts=N with N 1-65535, found \"65536\"");
    ck_assert_text_eq(error_of("id=a,endpts"),
                      "--request:6: expected endpts=N with N 1-65535, found \"endpts\"");
    ck_assert_text_eq(error_of("id=a,endpts="),
                      "--request:13: expected endpts=N with N 1-65535, found end of text");
    ck_assert_text_eq(error_of("type=tcp"),
                      "--request:1: the request has no id (id=NAME is required)");
    ck_assert_text_eq(error_of("id=a,qos=1,qos=2"), "--request:12: \"qos\" is given twice");
    ck_assert_text_eq(error_of("id=a b"),
                      "--request:4: expected id=NAME (letters, digits, \"_-.@\"), found \"a b\"");
    ck_assert_text_eq(error_of("id"),
                      "--request:1: expected id=NAME (letters, digits, \"_-.@\"), found \"id\"");
    ck_assert_text_eq(error_of("id=a!"),
                      "--request:4: expected id=NAME (letters, digits, \"_-.@\"), found \"a!\"");
    ck_assert_text_eq(error_of("id=a,type=t/p"),
                      "--request:11: expected type=TYPE (a transport: tcp, udp, ucx, ...), found "
                      "\"t/p\"");
    ck_assert_text_eq(error_of("id=a,plane=a b"),
                      "--request:12: expected plane=NAME or plane=CIDR, found \"a b\"");
    ck_assert_text_eq(error_of("id=a,seckey=0"),
                      "--request:13: expected seckey or seckey=BYTES with BYTES 1-1024, found "
                      "\"0\"");
    ck_assert_text_eq(error_of("id=a,seckey=2048"),
                      "--request:13: expected seckey or seckey=BYTES with BYTES 1-1024, found "
                      "\"2048\"");
    ck_assert_text_eq(error_of("id=a,qos=-1"),
                      "--request:10: expected qos=N with N 0-65535, found \"-1\"");
    ck_assert_text_eq(error_of("id=a,bw=fast"),
                      "--request:9: expected bw=RATE above 0 (such as 10G, 25Gb/s or 1000 = "
                      "Mbit/s), found \"fast\"");
    ck_assert_text_eq(error_of("id=a,bw=0"),
                      "--request:9: expected bw=RATE above 0 (such as 10G, 25Gb/s or 1000 = "
                      "Mbit/s), found \"0\"");
    ck_assert_text_eq(error_of("id=a,required=yes"),
                      "--request:6: expected \"required\" without a value, found \"required=yes\"");
    ck_assert_text_eq(error_of("id=a,,type=tcp"),
                      "--request:6: expected a request key (id, type, plane, endpts, seckey, qos, "
                      "bw, required), found ','");
    ck_assert_text_eq(error_of("id=a,"),
                      "--request:6: expected a request key (id, type, plane, endpts, seckey, qos, "
                      "bw, required), found end of text");
    ck_assert_text_eq(error_of(""), "--request:1: expected a request key (id, type, plane, endpts, "
                                    "seckey, qos, bw, required), found end of text");
    // Columns from where the text starts.
    ck_assert_text_eq(error_of("id=a,qos=x", 10),
                      "--request:19: expected qos=N with N 0-65535, found \"x\"");
    auto parsed = parse_request("id=a,qos=x", "r");
    ck_assert_int_eq(parsed.error().status, MERIDIAN_ERR_BAD_PARAM);
}
END_TEST

START_TEST(several_requests)
{
    auto parsed = parse_requests("id=a,type=tcp; id=b,type=ucx,required", "r");
    ck_assert(parsed.ok());
    ck_assert_uint_eq(parsed->size(), 2);
    ck_assert_text_eq((*parsed)[1].id, "b");
    ck_assert((*parsed)[1].type->required);
    ck_assert_uint_eq(parse_requests("  ", "r")->size(), 0);
    ck_assert_text_eq(errors_of("id=a;id=b;type=tcp,id=a"),
                      "pnet_base_requests (environment):23: request id \"a\" is used twice");
    ck_assert_text_eq(errors_of("id=a;id=b,qos=x"),
                      "pnet_base_requests (environment):15: expected qos=N with N 0-65535, found "
                      "\"x\"");
    ck_assert_text_eq(errors_of("id=a;"),
                      "pnet_base_requests (environment):6: expected a request key (id, type, "
                      "plane, endpts, seckey, qos, bw, required), found end of text");
}
END_TEST

START_TEST(round_trips)
{
    ck_assert_text_eq(reformatted("id=a"), "id=a");
    ck_assert_text_eq(reformatted("seckey,id=a,endpts=2,type=tcp"),
                      "id=a,type=tcp,endpts=2,seckey=16");
    ck_assert_text_eq(reformatted("id=a,type=tcp,endpts=2,required"),
                      "id=a,type=tcp,endpts=2,required");
    ck_assert_text_eq(reformatted("id=a,type=tcp!,endpts=2,bw=25Gb/s"),
                      "id=a,type=tcp!,endpts=2,bw=25000");
    ck_assert_text_eq(reformatted("id=a,bw=0.1,plane=ib:0/x,qos=0!"),
                      "id=a,plane=ib:0/x,qos=0!,bw=0.1");
    ck_assert_text_eq(reformatted("id=a,bw=1e300 Tbps"), "id=a,bw=1e+306");
}
END_TEST

START_TEST(rates)
{
    struct Case {
        const char *text;
        double mbps;
    };
    const Case cases[] = {
        {"100", 100},    {"10G", 10000},   {"25Gb/s", 25000},  {"25Gbps", 25000},
        {"1 Tbps", 1e6}, {"500Kb/s", 0.5}, {"8bps", 8e-6},     {"1B/s", 8e-6},
        {"1GB/s", 8000}, {"2MB/s", 16},    {"1.5k", 1.5e-3},   {"3m", 3},
        {"1e3", 1000},   {".5G", 500},     {"10 gB/S", 80000}, {"1TB/s", 8e6},
    };
    for (const Case &c : cases) {
        const auto rate = parse_rate_mbps(c.text);
        ck_assert_msg(rate.has_value(), "%s refused", c.text);
        ck_assert_msg(std::fabs(*rate - c.mbps) <= 1e-9 * c.mbps, "%s is %g, expected %g", c.text,
                      *rate, c.mbps);
    }
    const char *const bad[] = {"",      "G",   "-1",  "10X",   "10Gb", "10 Gbit/s",
                               "1e999", "inf", "nan", "10G/s", "0x10", "1..2"};
    for (const char *text : bad) {
        ck_assert_msg(!parse_rate_mbps(text), "\"%s\" accepted", text);
    }
    ck_assert_text_eq(format_rate_mbps(10000), "10 Gb/s");
    ck_assert_text_eq(format_rate_mbps(250), "250 Mb/s");
    ck_assert_text_eq(format_rate_mbps(2.5e6), "2.5 Tb/s");
    ck_assert_text_eq(format_rate_mbps(0.064), "64 Kb/s");
    ck_assert_text_eq(format_rate_mbps(0), "0 b/s");
    ck_assert(*parse_rate_mbps(format_rate_mbps(40000)) == 40000);
}
END_TEST

int main()
{
    Suite *suite = suite_create("requests");
    TCase *tcase = tcase_create("requests");
    tcase_add_test(tcase, a_full_request);
    tcase_add_test(tcase, required_flags);
    tcase_add_test(tcase, every_error);
    tcase_add_test(tcase, several_requests);
    tcase_add_test(tcase, round_trips);
    tcase_add_test(tcase, rates);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}
