// SPDX-License-Identifier: BSD-3-Clause
// The datastore's mpi backend (datastore_exchange.cc) over an exchange of
// the test's own: one thread per rank, an allgather through shared memory,
// as libqmp_mpi's is over MPI.  Values cross at fences and only then; the
// job's name and node come from the first exchange; wait_for does not wait
// for what cannot come; abort goes to the exchange; and what is refused,
// with its message (a failed allgather, a peer's bytes that are not values,
// mpi asked for where nothing offers it).
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test/support/meridian_test.hpp"
#include <meridian/opal/runtime/datastore.hpp>

using namespace meridian;
using namespace meridian::datastore;

namespace
{

// What the ranks of one job share: each round's bytes by rank.
struct Job {
    explicit Job(std::uint32_t n) : size(n) {}
    std::uint32_t size;
    std::mutex lock;
    std::condition_variable changed;
    std::map<std::size_t, std::vector<Bytes>> rounds;
    std::map<std::size_t, std::uint32_t> arrived;
    std::atomic<int> aborted{-1};
    bool fail = false;                  // every allgather fails
    std::uint32_t garbage = UINT32_MAX; // this rank's bytes are not values
};

class FakeExchange final : public Exchange
{
  public:
    FakeExchange(Job &job, std::uint32_t rank) : job_(job), rank_(rank) {}
    std::string name() const override { return "the test's exchange"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return job_.size; }
    Result<std::vector<Bytes>> allgather(std::span<const std::uint8_t> mine) override
    {
        if (job_.fail) {
            return make_error(MERIDIAN_ERROR, "MPI_Allgather failed: the test says so");
        }
        std::unique_lock guard(job_.lock);
        const std::size_t round = round_++;
        auto &slots = job_.rounds[round];
        slots.resize(job_.size);
        slots[rank_] = rank_ == job_.garbage ? Bytes{1, 2, 3} : Bytes(mine.begin(), mine.end());
        ++job_.arrived[round];
        job_.changed.notify_all();
        const bool all = job_.changed.wait_for(guard, std::chrono::seconds(20),
                                               [&] { return job_.arrived[round] == job_.size; });
        if (!all) {
            return make_error(MERIDIAN_ERR_TIMEOUT, "the test's ranks did not all arrive");
        }
        return job_.rounds[round];
    }
    void abort(int code) override { job_.aborted = code; }

  private:
    Job &job_;
    std::uint32_t rank_;
    std::size_t round_ = 0;
};

// Each rank's store, made side by side (the first exchange is collective).
std::vector<std::unique_ptr<Store>> start_job(Job &job)
{
    std::vector<Result<std::unique_ptr<Store>>> made;
    for (std::uint32_t r = 0; r < job.size; ++r) {
        made.emplace_back(make_error(MERIDIAN_ERROR, "not started"));
    }
    std::vector<std::thread> threads;
    for (std::uint32_t r = 0; r < job.size; ++r) {
        threads.emplace_back(
            [&, r] { made[r] = make_exchange_store(std::make_shared<FakeExchange>(job, r)); });
    }
    for (auto &t : threads) {
        t.join();
    }
    std::vector<std::unique_ptr<Store>> stores;
    for (auto &m : made) {
        ck_assert_msg(m.ok(), "%s", m.ok() ? "" : m.error().message.c_str());
        stores.push_back(std::move(*m));
    }
    return stores;
}

std::vector<Status> fence_all(std::vector<std::unique_ptr<Store>> &stores)
{
    std::vector<Status> done(stores.size(), success());
    std::vector<std::thread> threads;
    for (std::size_t r = 0; r < stores.size(); ++r) {
        threads.emplace_back([&, r] { done[r] = stores[r]->fence(); });
    }
    for (auto &t : threads) {
        t.join();
    }
    return done;
}

} // namespace

START_TEST(values_cross_at_fences)
{
    Job job(3);
    auto stores = start_job(job);
    const std::string nspace = stores[0]->self().nspace;
    ck_assert(nspace.starts_with("mpi-"));
    for (std::uint32_t r = 0; r < 3; ++r) {
        ck_assert_text_eq(stores[r]->backend(), "mpi");
        ck_assert_text_eq(stores[r]->self().nspace, nspace);
        ck_assert_uint_eq(stores[r]->self().rank, r);
        ck_assert_uint_eq(stores[r]->job_size(), 3);
        // One host: one node of three.
        ck_assert_uint_eq(stores[r]->local_size(), 3);
        ck_assert_uint_eq(stores[r]->local_rank(), r);
    }
    auto nodes = stores[1]->job_nodes();
    ck_assert(nodes.ok() && nodes->size() == 1);
    ck_assert((*nodes)[0].ranks == (std::vector<std::uint32_t>{0, 1, 2}));
    ck_assert_text_eq((*nodes)[0].node, stores[1]->node_name());
    Bytes large(300000);
    for (std::size_t i = 0; i < large.size(); ++i) {
        large[i] = static_cast<std::uint8_t>(i * 13);
    }
    const InfoList values = {{"t.string", std::string("a = b \n")},
                             {"t.large", large},
                             {"t.uint32s", std::vector<std::uint32_t>{1, 2, UINT32_MAX}},
                             {"t.info", InfoList{{"pmix.alloc.netid", std::string("3")}}}};
    for (const auto &info : values) {
        ck_assert(stores[2]->put(info.key, info.value).ok());
    }
    ck_assert(stores[2]->commit().ok());
    // Its own at once; a peer's only after the fence.
    ck_assert(stores[2]->get({nspace, 2}, "t.string").ok());
    auto before = stores[0]->get({nspace, 2}, "t.string");
    ck_assert(!before.ok());
    ck_assert_text_eq(before.error().message,
                      "datastore: no value for \"t.string\" of " + nspace + ":2 (MPI datastore)");
    for (const auto &done : fence_all(stores)) {
        ck_assert_msg(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
    }
    for (std::uint32_t r = 0; r < 2; ++r) {
        for (const auto &info : values) {
            auto got = stores[r]->get({nspace, 2}, info.key);
            ck_assert_msg(got.ok() && *got == info.value, "%s at rank %u", info.key.c_str(), r);
        }
    }
    // A later value replaces it at the next fence; another job's is not here.
    ck_assert(stores[2]->put("t.string", std::string("again")).ok());
    for (const auto &done : fence_all(stores)) {
        ck_assert(done.ok());
    }
    auto again = stores[0]->get({nspace, 2}, "t.string");
    ck_assert(again.ok() && std::get<std::string>(*again) == "again");
    ck_assert(!stores[0]->get({"another", 2}, "t.string").ok());
    // What never came is not waited for.
    const auto start = std::chrono::steady_clock::now();
    auto never = stores[0]->wait_for({nspace, 1}, "never", std::chrono::seconds(30));
    ck_assert(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    ck_assert(!never.ok());
    ck_assert_int_eq(never.error().status, MERIDIAN_ERR_TIMEOUT);
    ck_assert_text_eq(never.error().message,
                      "datastore: " + nspace +
                          ":1 published no \"never\" by the job's last fence (MPI datastore: "
                          "values cross at fences)");
    // No events; abort is the exchange's.
    auto told = stores[0]->notify(1, {}, Store::EventRange::job);
    ck_assert(!told.ok());
    ck_assert_text_eq(told.error().message,
                      "the MPI datastore carries no events between a job's processes");
    stores[1]->abort_job(7, "QMP_abort(7)");
    ck_assert_int_eq(job.aborted.load(), 7);
}
END_TEST

START_TEST(what_is_refused)
{
    {
        Job job(2);
        job.fail = true;
        auto store = make_exchange_store(std::make_shared<FakeExchange>(job, 0));
        ck_assert(!store.ok());
        ck_assert_text_eq(store.error().message,
                          "datastore: the job's exchange through the test's exchange failed: "
                          "MPI_Allgather failed: the test says so");
    }
    {
        Job job(2);
        job.garbage = 1;
        std::vector<Result<std::unique_ptr<Store>>> made;
        made.emplace_back(make_error(MERIDIAN_ERROR, "-"));
        made.emplace_back(make_error(MERIDIAN_ERROR, "-"));
        std::thread other(
            [&] { made[1] = make_exchange_store(std::make_shared<FakeExchange>(job, 1)); });
        made[0] = make_exchange_store(std::make_shared<FakeExchange>(job, 0));
        other.join();
        ck_assert(!made[0].ok());
        ck_assert(made[0].error().message.starts_with(
            "datastore: what rank 1 sent in the job's exchange is not Meridian's values: "));
    }
    {
        Job job(2);
        auto store = make_exchange_store(std::make_shared<FakeExchange>(job, 2));
        ck_assert(!store.ok());
        ck_assert_text_eq(store.error().message,
                          "datastore: the job's exchange gives no rank below a size");
    }
}
END_TEST

// store(): mpi asked for where nothing offers it.
START_TEST(mpi_without_an_offer)
{
    meridian_test::set_param_env("mca_base_datastore", "mpi");
    auto chosen = datastore::store();
    ck_assert(!chosen.ok());
    ck_assert_text_eq(chosen.error().message,
                      "mca_base_datastore=mpi: no MPI offers its job: the program did not link "
                      "QMP's MPI part (libqmp_mpi: `qmp-config --mpi --libs`), or it is not in "
                      "QMP_init_msg_passing, which offers it");
}
END_TEST

// store(): auto takes the offer of a job of several (a job of one: local).
START_TEST(auto_takes_a_job_of_several)
{
    Job job(1);
    offer_exchange(std::make_shared<FakeExchange>(job, 0));
    auto alone = datastore::store();
    ck_assert(alone.ok());
    ck_assert_text_eq((*alone)->backend(), "local");
    shutdown();
    Job two(2);
    offer_exchange(std::make_shared<FakeExchange>(two, 0));
    Result<std::unique_ptr<Store>> other = make_error(MERIDIAN_ERROR, "not started");
    std::thread peer([&] { other = make_exchange_store(std::make_shared<FakeExchange>(two, 1)); });
    auto chosen = datastore::store();
    peer.join();
    ck_assert_msg(chosen.ok(), "%s", chosen.ok() ? "" : chosen.error().message.c_str());
    ck_assert_text_eq((*chosen)->backend(), "mpi");
    ck_assert_uint_eq((*chosen)->job_size(), 2);
    ck_assert(other.ok());
    shutdown();
    offer_exchange(nullptr);
}
END_TEST

int main()
{
    Suite *suite = suite_create("datastore_exchange");
    TCase *tc = tcase_create("exchange");
    tcase_add_checked_fixture(tc, meridian_test::isolate_mca_environment, nullptr);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, values_cross_at_fences);
    tcase_add_test(tc, what_is_refused);
    tcase_add_test(tc, mpi_without_an_offer);
    tcase_add_test(tc, auto_takes_a_job_of_several);
    suite_add_tcase(suite, tc);
    return meridian_test::run_suite(suite);
}
