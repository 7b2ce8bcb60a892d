// SPDX-License-Identifier: BSD-3-Clause
// The datastore's local backend and what both backends share: every value
// type round-trips through put/get and store/get, a missing key names the
// key and the process, store() replaces, values stored here come before
// published ones, format_value's text for every type, a value's bytes
// (encode, decode) and what decode refuses, and store() picking a backend by
// mca_base_datastore.
#include "config.h" // MERIDIAN_HAVE_PMIX

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/runtime/datastore.hpp>

using namespace meridian;
using namespace meridian::datastore;

namespace
{

// One value of every type, each unlike its type's default.
InfoList every_type()
{
    Coordinate c;
    c.fabric = "ethernet";
    c.plane = "10.10.1.0/24";
    c.view = MERIDIAN_COORD_PHYSICAL_VIEW;
    c.coord = {1, 0, 2};
    Coordinate d;
    d.view = 7; // another view passes through
    return {
        {"b", true},
        {"i", std::int64_t{-42}},
        {"u", std::uint64_t{UINT64_MAX}},
        {"d", 0.1},
        {"s", std::string("text with \"quotes\"")},
        {"y", Bytes{0x00, 0x4d, 0xff}},
        {"sa", std::vector<std::string>{"eth0", "", "ib0"}},
        {"ua", std::vector<std::uint32_t>{32000, 32001, UINT32_MAX}},
        {"co", std::vector<Coordinate>{c, d}},
        {"il", InfoList{{"pmix.alloc.netid", std::string("32000-32001")},
                        {"nested", InfoList{{"x", std::uint64_t{3}}}}}},
    };
}

const ProcId self{"job-1", 3};

void isolate()
{
    meridian_test::isolate_mca_environment();
}

} // namespace

START_TEST(every_type_round_trips_through_put)
{
    auto store = make_local_store(self, 4, "node07");
    for (const auto &info : every_type()) {
        ck_assert(store->put(info.key, info.value).ok());
    }
    ck_assert(store->commit().ok());
    ck_assert(store->fence().ok());
    for (const auto &info : every_type()) {
        auto got = store->get(self, info.key);
        ck_assert_msg(got.ok(), "%s", info.key.c_str());
        ck_assert_msg(*got == info.value, "%s: %s", info.key.c_str(), format_value(*got).c_str());
    }
}
END_TEST

START_TEST(every_type_round_trips_through_store)
{
    auto store = make_local_store(self);
    const ProcId peer{"job-1", 9};
    const ProcId job{"job-1", job_rank};
    for (const auto &info : every_type()) {
        ck_assert(store->store(peer, info.key, info.value).ok());
        ck_assert(store->store(job, info.key, info.value).ok());
    }
    for (const auto &info : every_type()) {
        ck_assert(*store->get(peer, info.key) == info.value);
        ck_assert(*store->get(job, info.key) == info.value);
    }
}
END_TEST

START_TEST(identity)
{
    auto store = make_local_store(self, 4, "node07");
    ck_assert_text_eq(store->backend(), "local");
    ck_assert(store->self() == self);
    ck_assert_uint_eq(store->job_size(), 4);
    ck_assert_text_eq(store->node_name(), "node07");
    // No node name: the host's.
    char host[256] = {};
    ck_assert_int_eq(gethostname(host, sizeof host - 1), 0);
    ck_assert_text_eq(make_local_store(self)->node_name(), host);
    ck_assert_uint_eq(make_local_store(self)->job_size(), 1);
}
END_TEST

START_TEST(missing_key_names_key_and_process)
{
    auto store = make_local_store(self);
    auto got = store->get(self, "pmix.net.coord");
    ck_assert(!got.ok());
    ck_assert_int_eq(got.error().status, MERIDIAN_ERR_NOT_FOUND);
    ck_assert_text_eq(got.error().message,
                      "datastore: no value for \"pmix.net.coord\" of job-1:3 (local datastore)");
    auto job = store->get(ProcId{"job-1", job_rank}, "pmix.job.size");
    ck_assert_text_eq(job.error().message,
                      "datastore: no value for \"pmix.job.size\" of job job-1 (local datastore)");
    // What a process published is its own, not another's.
    ck_assert(store->put("k", std::uint64_t{1}).ok());
    ck_assert_text_eq(store->get(ProcId{"job-1", 4}, "k").error().message,
                      "datastore: no value for \"k\" of job-1:4 (local datastore)");
    ck_assert_text_eq(store->get(ProcId{"job-2", 3}, "k").error().message,
                      "datastore: no value for \"k\" of job-2:3 (local datastore)");
}
END_TEST

START_TEST(empty_key_is_refused)
{
    auto store = make_local_store(self);
    ck_assert_text_eq(store->put("", true).error().message, "datastore: a key must not be empty");
    ck_assert_text_eq(store->store(self, "", true).error().message,
                      "datastore: a key must not be empty");
}
END_TEST

START_TEST(store_replaces_and_comes_first)
{
    auto store = make_local_store(self);
    ck_assert(store->put("id", std::string("published")).ok());
    ck_assert(*store->get(self, "id") == Value(std::string("published")));
    ck_assert(store->store(self, "id", std::string("first")).ok());
    ck_assert(*store->get(self, "id") == Value(std::string("first")));
    ck_assert(store->store(self, "id", std::uint64_t{2}).ok());
    ck_assert(*store->get(self, "id") == Value(std::uint64_t{2}));
    // Publishing again does not hide what was stored.
    ck_assert(store->put("id", std::string("again")).ok());
    ck_assert(*store->get(self, "id") == Value(std::uint64_t{2}));
}
END_TEST

START_TEST(type_names)
{
    const char *const expected[] = {"bool",        "int64",    "uint64",       "double",
                                    "string",      "bytes",    "string array", "uint32 array",
                                    "coordinates", "info list"};
    std::size_t i = 0;
    for (const auto &info : every_type()) {
        ck_assert_text_eq(value_type_name(info.value), expected[i++]);
    }
}
END_TEST

START_TEST(format_every_type)
{
    const char *const expected[] = {
        "true",
        "-42",
        "18446744073709551615",
        "0.1",
        "\"text with \\\"quotes\\\"\"",
        "<004dff>",
        "[\"eth0\",\"\",\"ib0\"]",
        "[32000,32001,4294967295]",
        "[{fabric=\"ethernet\", plane=\"10.10.1.0/24\", view=physical, coord=(1,0,2)}, "
        "{fabric=\"\", plane=\"\", view=7, coord=()}]",
        "{pmix.alloc.netid=\"32000-32001\", nested={x=3}}",
    };
    std::size_t i = 0;
    for (const auto &info : every_type()) {
        ck_assert_text_eq(format_value(info.value), expected[i++]);
    }
    ck_assert_text_eq(format_value(false), "false");
    ck_assert_text_eq(format_value(1.5e300), "1.5e+300");
    ck_assert_text_eq(format_value(Bytes{}), "<>");
    ck_assert_text_eq(format_value(InfoList{}), "{}");
    ck_assert_text_eq(format_value(std::vector<std::uint32_t>{}), "[]");
}
END_TEST

START_TEST(format_proc_text)
{
    ck_assert_text_eq(format_proc(ProcId{"ns", 0}), "ns:0");
    ck_assert_text_eq(format_proc(ProcId{"ns", job_rank}), "job ns");
}
END_TEST

// ------------------------------------------------------------ bytes

// Every type, alone and together in a nested list, comes back from its
// bytes as it went in; so do the empty values and a NaN's bits.
START_TEST(every_type_round_trips_through_bytes)
{
    for (const auto &info : every_type()) {
        auto back = decode(encode(info.value));
        ck_assert_msg(back.ok(), "%s: %s", info.key.c_str(), back.error().message.c_str());
        ck_assert_msg(*back == info.value, "%s: %s", info.key.c_str(), format_value(*back).c_str());
    }
    const Value all = InfoList{{"every", every_type()}, {"again", every_type()}};
    auto back = decode(encode(all));
    ck_assert(back.ok());
    ck_assert(*back == all);
    for (const Value &empty : {Value{std::string()}, Value{Bytes{}}, Value{InfoList{}},
                               Value{std::vector<std::string>{}}, Value{std::vector<Coordinate>{}},
                               Value{std::vector<std::uint32_t>{}}, Value{false}}) {
        auto again = decode(encode(empty));
        ck_assert(again.ok());
        ck_assert(*again == empty);
    }
    auto nan = decode(encode(std::numeric_limits<double>::quiet_NaN()));
    ck_assert(nan.ok() && std::isnan(std::get<double>(*nan)));
}
END_TEST

// The layout is fixed (it crosses processes): a version byte, the type's
// byte, little-endian numbers, lengths before strings.
START_TEST(bytes_layout)
{
    ck_assert(encode(true) == (Bytes{1, 0, 1}));
    ck_assert(encode(std::uint64_t{0x0102}) == (Bytes{1, 2, 0x02, 0x01, 0, 0, 0, 0, 0, 0}));
    ck_assert(encode(std::string("ab")) == (Bytes{1, 4, 2, 0, 0, 0, 'a', 'b'}));
    ck_assert(encode(InfoList{{"k", std::vector<std::uint32_t>{7}}}) ==
              (Bytes{1, 9, 1, 0, 0, 0, 1, 0, 0, 0, 'k', 7, 1, 0, 0, 0, 7, 0, 0, 0}));
}
END_TEST

// Bytes that end early fail at every length, with where; none is read past
// its end (the ASan build runs this too).
START_TEST(every_truncation_is_refused)
{
    const Bytes whole = encode(InfoList{{"every", every_type()}});
    ck_assert_text_eq(decode(Bytes{}).error().message, "no value: the bytes are empty");
    for (std::size_t size = 1; size < whole.size(); ++size) {
        const Bytes part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(size));
        auto back = decode(part);
        ck_assert_msg(!back.ok(), "%zu of %zu bytes decoded", size, whole.size());
        ck_assert_int_eq(back.error().status, MERIDIAN_ERR_BAD_PARAM);
        const std::string &why = back.error().message;
        ck_assert_msg(why.find("the bytes end inside") != std::string::npos ||
                          why.find("bytes left can hold") != std::string::npos,
                      "%zu bytes: %s", size, why.c_str());
    }
    ck_assert_text_eq(decode(Bytes{1, 4, 2, 0, 0}).error().message,
                      "the bytes end inside a string (at byte 2 of 5)");
}
END_TEST

// What encode never makes is refused with the reason.
START_TEST(foreign_bytes_are_refused)
{
    ck_assert_text_eq(decode(Bytes{2, 0, 1}).error().message,
                      "the bytes are of layout version 2, this library reads version 1");
    ck_assert_text_eq(decode(Bytes{1, 10}).error().message, "unknown value type 10 at byte 1");
    ck_assert_text_eq(decode(Bytes{1, 0, 2}).error().message, "a bool is 2, not 0 or 1");
    ck_assert_text_eq(decode(Bytes{1, 0, 1, 0}).error().message, "1 bytes follow the value");
    // A count no bytes back: refused before anything is allocated for it.
    ck_assert_text_eq(decode(Bytes{1, 7, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}).error().message,
                      "a uint32 array counts 4294967295 items, more than the 4 bytes left can "
                      "hold");
    // An entry's failure names the entry.
    ck_assert_text_eq(decode(Bytes{1, 9, 1, 0, 0, 0, 1, 0, 0, 0, 'k', 0, 5}).error().message,
                      "entry \"k\": a bool is 5, not 0 or 1");
    // Lists in lists deeper than any value has: refused, not a deep recursion.
    Bytes deep{1};
    for (int i = 0; i < 10000; ++i) {
        deep.insert(deep.end(), {9, 1, 0, 0, 0, 0, 0, 0, 0});
    }
    ck_assert_text_eq(decode(deep).error().message,
                      std::string("entry \"\": ") + "entry \"\": entry \"\": entry \"\": " +
                          "entry \"\": entry \"\": entry \"\": entry \"\": info lists nest " +
                          "deeper than 8 levels");
}
END_TEST

// No launcher of any kind in this process's environment.
void started_alone()
{
    for (const char *name :
         {"PMIX_NAMESPACE", "PMIX_RANK", "SLURM_STEP_ID", "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS",
          "SLURM_PROCID", "SLURM_MPI_TYPE", "PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE",
          "OMPI_COMM_WORLD_RANK", "FLUX_JOB_ID", "PALS_RANKID", "PALS_SIZE", "PMI_FD", "PMI_PORT",
          "PMI_ID"}) {
        unsetenv(name);
    }
}

START_TEST(auto_without_pmix_is_a_singleton)
{
    started_alone();
    auto store = datastore::store();
    ck_assert(store.ok());
    ck_assert_text_eq((*store)->backend(), "local");
    ck_assert_text_eq((*store)->self().nspace, "singleton." + std::to_string(getpid()));
    ck_assert_uint_eq((*store)->self().rank, 0);
    ck_assert_uint_eq((*store)->job_size(), 1);
    ck_assert_uint_eq((*store)->local_rank(), 0);
    // The same store until shutdown.
    ck_assert(*datastore::store() == *store);
    ck_assert((*store)->put("k", true).ok());
    shutdown();
    auto fresh = datastore::store();
    ck_assert(!(*fresh)->get((*fresh)->self(), "k").ok());
    shutdown();
}
END_TEST

// srun without --mpi=pmix started several tasks: each would be a job of one.
START_TEST(srun_without_pmix_is_an_error)
{
    started_alone();
    setenv("SLURM_STEP_ID", "3", 1);
    setenv("SLURM_STEP_NUM_TASKS", "4", 1);
    setenv("SLURM_NTASKS", "4", 1);
    setenv("SLURM_PROCID", "2", 1);
    setenv("SLURM_MPI_TYPE", "none", 1);
    auto store = datastore::store();
    ck_assert(!store.ok());
    ck_assert_int_eq(store.error().status, MERIDIAN_ERR_NOT_AVAILABLE);
    const std::string expected =
        "srun started this process as task 2 of 4 with MPI plugin \"none\", which gives it no "
        "PMIx: every task would run as a job of one. Run it with srun --mpi=pmix or --mpi=pmi2 "
        "(srun --mpi=list shows the plugins this Slurm has; MpiDefault in slurm.conf sets the "
        "default) (or set mca_base_datastore=local to run each process alone)";
    ck_assert_text_eq(store.error().message, expected);
    // meridian_init stops with it, said once.
    meridian_test::capture_messages();
    meridian_test::set_param_env("pnet_base_in_job", "yes");
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_ERR_NOT_AVAILABLE);
    ck_assert_uint_eq(meridian_test::messages().size(), 1);
    ck_assert_text_eq(meridian_test::messages()[0].text, expected);
    // srun --mpi=none names no plugin.
    shutdown();
    unsetenv("SLURM_MPI_TYPE");
    auto none = datastore::store();
    ck_assert(!none.ok());
    ck_assert_text_eq(none.error().message,
                      "srun started this process as task 2 of 4 without PMIx (its --mpi plugin, "
                      "or the site's MpiDefault, is none or not pmix): every task would run as a "
                      "job of one. Run it with srun --mpi=pmix or --mpi=pmi2 (srun --mpi=list "
                      "shows the plugins this Slurm has; MpiDefault in slurm.conf sets the "
                      "default) (or set mca_base_datastore=local to run each process alone)");
}
END_TEST

// A step of one task, and a program run in salloc's or sbatch's own shell
// (no step), are really alone.
START_TEST(slurm_alone_is_a_singleton)
{
    started_alone();
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    setenv("SLURM_NTASKS", "8", 1); // the allocation's
    auto store = datastore::store();
    ck_assert(store.ok());
    ck_assert_uint_eq((*store)->job_size(), 1);
    shutdown();
    unsetenv("SLURM_STEP_ID");
    unsetenv("SLURM_STEP_NUM_TASKS");
    store = datastore::store();
    ck_assert(store.ok());
    ck_assert_text_eq((*store)->backend(), "local");
    shutdown();
    // And local means local, whatever the launcher.
    setenv("SLURM_STEP_ID", "3", 1);
    setenv("SLURM_STEP_NUM_TASKS", "4", 1);
    meridian_test::set_param_env("mca_base_datastore", "local");
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_SUCCESS);
    store = datastore::store();
    ck_assert(store.ok());
    ck_assert_text_eq((*store)->backend(), "local");
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);
}
END_TEST

// MPICH's or Intel MPI's mpiexec (PMI-1/2), and an mpirun that gives Open
// MPI's size without PMIx.
START_TEST(other_launchers_without_pmix_are_errors)
{
    started_alone();
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "2", 1);
    auto store = datastore::store();
    ck_assert(!store.ok());
    ck_assert_text_eq(store.error().message,
                      "a PMI launcher started this process as rank 1 of 2 without a PMI "
                      "connection (no PMI_FD, nor PMI_PORT and PMI_ID): start it with MPICH's "
                      "mpiexec, srun --mpi=pmi2 or --mpi=pmix, flux run -o pmi=simple, or Open "
                      "MPI's mpirun (or set mca_base_datastore=local to run each process alone)");
    // Flux without its PMI-1 server, and Cray PALS: each named.
    started_alone();
    setenv("PMI_RANK", "2", 1);
    setenv("PMI_SIZE", "3", 1);
    setenv("FLUX_JOB_ID", "f2Ab", 1);
    store = datastore::store();
    ck_assert(!store.ok());
    ck_assert_text_eq(store.error().message,
                      "flux run started this process as rank 2 of 3 without a PMI connection (no "
                      "PMI_FD, nor PMI_PORT and PMI_ID): start it with MPICH's mpiexec, srun "
                      "--mpi=pmi2 or --mpi=pmix, flux run -o pmi=simple, or Open MPI's mpirun "
                      "(or set mca_base_datastore=local to run each process alone)");
    unsetenv("FLUX_JOB_ID");
    started_alone();
    setenv("PALS_RANKID", "5", 1);
    setenv("PALS_SIZE", "8", 1);
    store = datastore::store();
    ck_assert(!store.ok());
    ck_assert_text_eq(store.error().message,
                      "Cray PALS started this process as rank 5 of 8, whose Cray PMI Meridian "
                      "does not speak: start it with srun --mpi=pmix or --mpi=pmi2 where the "
                      "system's Slurm has them (or set mca_base_datastore=local to run each "
                      "process alone)");
    unsetenv("PALS_RANKID");
    unsetenv("PALS_SIZE");
    started_alone();
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "1", 1);
    ck_assert(datastore::store().ok()); // a job of one is one
    shutdown();
    started_alone();
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    store = datastore::store();
    ck_assert(!store.ok());
    ck_assert_text_eq(store.error().message,
                      "Open MPI's mpirun started this process as rank 3 of 4 without PMIx (no "
                      "PMIX_NAMESPACE in its environment): start it with an mpirun that runs a "
                      "PMIx server (Open MPI 2.0 or later) (or set mca_base_datastore=local to "
                      "run each process alone)");
}
END_TEST

START_TEST(local_is_local_under_a_pmix_launcher)
{
    // Even with a launcher's environment, local means local: PMIx is not
    // touched.
    setenv("PMIX_NAMESPACE", "nobody", 1);
    setenv("PMIX_RANK", "0", 1);
    meridian_test::set_param_env("mca_base_datastore", "local");
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_SUCCESS);
    auto store = datastore::store();
    ck_assert(store.ok());
    ck_assert_text_eq((*store)->backend(), "local");
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);
}
END_TEST

START_TEST(pmix_without_a_launcher_is_an_error)
{
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    unsetenv("PMIX_SERVER_URI41");
    unsetenv("PMIX_SERVER_URI4");
    unsetenv("PMIX_SERVER_URI3");
    unsetenv("PMIX_SERVER_URI2");
    meridian_test::set_param_env("mca_base_datastore", "pmix");
    auto store = datastore::store();
    ck_assert(!store.ok());
    ck_assert_int_eq(store.error().status, MERIDIAN_ERR_NOT_AVAILABLE);
#ifdef MERIDIAN_HAVE_PMIX
    // The rest is PMIx's reason.
    const std::string prefix = "mca_base_datastore=pmix: PMIx_Init failed: ";
    ck_assert_text_eq(store.error().message.substr(0, prefix.size()), prefix);
    ck_assert(store.error().message.size() > prefix.size());
#else
    ck_assert_text_eq(store.error().message,
                      "mca_base_datastore=pmix: Meridian was built without PMIx (configure "
                      "found no libpmix-dev), so the datastore cannot use it");
#endif
    // meridian_init reports it and fails when in-job mode needs the store.
    meridian_test::capture_messages();
    meridian_test::set_param_env("pnet_base_in_job", "yes");
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_ERR_NOT_AVAILABLE);
    ck_assert_uint_eq(meridian_test::messages().size(), 1);
    ck_assert_text_eq(meridian_test::messages()[0].text, store.error().message);
    // With in-job mode off nobody asks for the store.
    meridian_test::clear_messages();
    meridian_test::set_param_env("pnet_base_in_job", "no");
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);
}
END_TEST

int main()
{
    Suite *suite = suite_create("datastore_local");
    TCase *values = tcase_create("values");
    tcase_add_checked_fixture(values, isolate, nullptr);
    tcase_add_test(values, every_type_round_trips_through_put);
    tcase_add_test(values, every_type_round_trips_through_store);
    tcase_add_test(values, identity);
    tcase_add_test(values, missing_key_names_key_and_process);
    tcase_add_test(values, empty_key_is_refused);
    tcase_add_test(values, store_replaces_and_comes_first);
    suite_add_tcase(suite, values);

    TCase *text = tcase_create("text");
    tcase_add_test(text, type_names);
    tcase_add_test(text, format_every_type);
    tcase_add_test(text, format_proc_text);
    suite_add_tcase(suite, text);

    TCase *bytes = tcase_create("bytes");
    tcase_add_test(bytes, every_type_round_trips_through_bytes);
    tcase_add_test(bytes, bytes_layout);
    tcase_add_test(bytes, every_truncation_is_refused);
    tcase_add_test(bytes, foreign_bytes_are_refused);
    suite_add_tcase(suite, bytes);

    TCase *choice = tcase_create("choice");
    tcase_add_checked_fixture(choice, isolate, nullptr);
    tcase_add_test(choice, auto_without_pmix_is_a_singleton);
    tcase_add_test(choice, local_is_local_under_a_pmix_launcher);
    tcase_add_test(choice, pmix_without_a_launcher_is_an_error);
    tcase_add_test(choice, srun_without_pmix_is_an_error);
    tcase_add_test(choice, slurm_alone_is_a_singleton);
    tcase_add_test(choice, other_launchers_without_pmix_are_errors);
    suite_add_tcase(suite, choice);
    return meridian_test::run_suite(suite);
}
