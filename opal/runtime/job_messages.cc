// SPDX-License-Identifier: BSD-3-Clause
#include "opal/runtime/job_messages.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <new>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "opal/mca/base/base_params.hpp"
#include <meridian/opal/util/no_destructor.hpp>
#include <meridian/opal/util/output.hpp>

namespace meridian::job_messages
{

namespace
{

using Clock = std::chrono::steady_clock;
// How long past the window a process waits for its printer to confirm.
constexpr std::chrono::seconds grace{1};

// One thing a process said; seq counts what it said, so that a copy sent
// again is known for one.
struct Message {
    Severity severity = Severity::error;
    std::string text;
    std::uint32_t seq = 0;
    bool same(const Message &other) const
    {
        return severity == other.severity && text == other.text;
    }
};

struct Sent {
    Message message;
    Clock::time_point when;
};

// What the printer gathered: one message, the ranks that gave it, and each
// copy as (rank, seq) -- a process may say the same thing more than once.
struct Gathered {
    Message message;
    std::vector<std::uint32_t> ranks;
    std::vector<std::uint32_t> copies; // rank, seq, rank, seq, ...
    Clock::time_point first;
    bool has_copy(std::uint32_t rank, std::uint32_t seq) const
    {
        for (std::size_t i = 0; i + 1 < copies.size(); i += 2) {
            if (copies[i] == rank && copies[i + 1] == seq) {
                return true;
            }
        }
        return false;
    }
};

enum class Mode {
    direct,  // printed by this process (alone, or not aggregating)
    holding, // kept until start-up ends
    routed,  // to the node's printer, or gathered by this one
};

struct State {
    std::mutex lock;
    std::condition_variable changed;
    Mode mode = Mode::direct;
    bool client = false;         // a PMIx launcher started this process
    bool at_exit = false;        // release_at_exit registered by hold
    bool at_exit_routed = false; // and by attach, to run before the store goes
    std::uint32_t rank = 0;
    std::uint32_t next_seq = 0;
    std::vector<Message> outbox; // said here, not handed on yet
    // Routed:
    datastore::Store *store = nullptr;
    bool printer = false;
    std::size_t local_size = 1;
    std::string node;
    std::chrono::milliseconds window{1000};
    std::vector<Sent> unconfirmed;  // sent to the printer, not printed by it yet
    std::vector<Gathered> gathered; // the printer's
    // What the printer printed lately, so that a copy sent again (after its
    // "ready") is confirmed again, not printed twice; and those to confirm.
    std::vector<Gathered> printed;
    std::vector<Gathered> confirm_again;
    bool resend = false; // the printer is (again) ready
    bool stopping = false;
    std::uint64_t generation = 0; // events for an earlier attach are not ours
    std::thread worker;
};

State &state()
{
    static util::NoDestructor<State> instance;
    return instance.get();
}

std::string host_name()
{
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0) {
        return "?";
    }
    return name.data();
}

std::string origin_of(const std::vector<std::uint32_t> &ranks, const std::string &node)
{
    return (ranks.size() == 1 ? "rank " : "ranks ") + format_ranks(ranks) + " on " + node;
}

void work();
void go_direct(State &s, std::unique_lock<std::mutex> &guard);
void release_at_exit();

// Start the worker of a routed process, if it is not running.  Called
// locked.  Without a thread for it, all goes out directly.
void start_worker(State &s, std::unique_lock<std::mutex> &guard)
{
    if (s.worker.joinable()) {
        return;
    }
    try {
        s.worker = std::thread(work);
    } catch (const std::system_error &) {
        go_direct(s, guard);
        guard.lock();
    }
}

// Called from the C boundary's own reporting: it never throws.
bool route(Severity severity, std::string_view text) noexcept
{
    auto &s = state();
    std::unique_lock guard(s.lock);
    if (s.mode == Mode::direct) {
        return false;
    }
    try {
        s.outbox.push_back(Message{severity, std::string(text), s.next_seq++});
    } catch (const std::bad_alloc &) {
        return false; // printed here and now
    }
    if (s.mode == Mode::routed && !s.stopping) {
        start_worker(s, guard);
    }
    s.changed.notify_all();
    return true;
}

std::optional<Message> message_of(const datastore::InfoList &info)
{
    const std::int64_t *severity = nullptr;
    const std::string *text = nullptr;
    const std::int64_t *seq = nullptr;
    for (const auto &entry : info) {
        if (entry.key == key_severity) {
            severity = std::get_if<std::int64_t>(&entry.value);
        } else if (entry.key == key_text) {
            text = std::get_if<std::string>(&entry.value);
        } else if (entry.key == key_seq) {
            seq = std::get_if<std::int64_t>(&entry.value);
        }
    }
    if (severity == nullptr || text == nullptr || *severity < MERIDIAN_SEVERITY_ERROR ||
        *severity > MERIDIAN_SEVERITY_NOTICE) {
        return std::nullopt;
    }
    return Message{static_cast<Severity>(*severity), *text,
                   seq != nullptr ? static_cast<std::uint32_t>(*seq) : 0U};
}

datastore::InfoList info_of(const Message &message)
{
    return {{key_severity, static_cast<std::int64_t>(message.severity)},
            {key_text, message.text},
            {key_seq, static_cast<std::int64_t>(message.seq)}};
}

// The printer's answer: it printed these copies.
datastore::InfoList printed_info(const Gathered &gathered)
{
    auto info = info_of(gathered.message);
    info.push_back({key_copies, gathered.copies});
    return info;
}

// As printed: "text", or "text (said 3 times)" when a process said it more
// than once.
std::string printed_text(const Gathered &gathered)
{
    const std::size_t copies = gathered.copies.size() / 2;
    if (copies <= gathered.ranks.size()) {
        return gathered.message.text;
    }
    return gathered.message.text + " (said " + std::to_string(copies) + " times)";
}

// How many printed messages the printer remembers.
constexpr std::size_t printed_kept = 64;

// The printer: process `rank` gave `message`.  A copy it printed already
// (sent again after the printer's "ready") is confirmed again; a copy it
// holds is not counted twice.
void gather(State &s, const Message &message, std::uint32_t rank, Clock::time_point now)
{
    const auto was_printed =
        std::find_if(s.printed.begin(), s.printed.end(), [&](const Gathered &g) {
            return g.message.same(message) && g.has_copy(rank, message.seq);
        });
    if (was_printed != s.printed.end()) {
        s.confirm_again.push_back(Gathered{message, {rank}, {rank, message.seq}, now});
        return;
    }
    auto it = std::find_if(s.gathered.begin(), s.gathered.end(),
                           [&](const Gathered &g) { return g.message.same(message); });
    if (it == s.gathered.end()) {
        s.gathered.push_back(Gathered{message, {rank}, {rank, message.seq}, now});
        return;
    }
    if (it->has_copy(rank, message.seq)) {
        return;
    }
    it->copies.push_back(rank);
    it->copies.push_back(message.seq);
    if (std::find(it->ranks.begin(), it->ranks.end(), rank) == it->ranks.end()) {
        it->ranks.push_back(rank);
    }
}

void on_said(std::uint64_t generation, const datastore::ProcId &source,
             const datastore::InfoList &info)
{
    auto &s = state();
    const auto message = message_of(info);
    const std::lock_guard guard(s.lock);
    if (!message || s.mode != Mode::routed || !s.printer || s.generation != generation) {
        return;
    }
    gather(s, *message, source.rank, Clock::now());
    s.changed.notify_all();
}

void on_printed(std::uint64_t generation, const datastore::InfoList &info)
{
    auto &s = state();
    const auto message = message_of(info);
    Gathered printed;
    for (const auto &entry : info) {
        if (const auto *copies = std::get_if<std::vector<std::uint32_t>>(&entry.value);
            copies != nullptr && entry.key == key_copies) {
            printed.copies = *copies;
        }
    }
    const std::lock_guard guard(s.lock);
    if (!message || s.mode != Mode::routed || s.printer || s.generation != generation) {
        return;
    }
    const auto before = s.unconfirmed.size();
    std::erase_if(s.unconfirmed, [&](const Sent &sent) {
        return sent.message.same(*message) && printed.has_copy(s.rank, sent.message.seq);
    });
    if (s.unconfirmed.size() != before) {
        s.changed.notify_all();
    }
}

void on_ready(std::uint64_t generation)
{
    auto &s = state();
    const std::lock_guard guard(s.lock);
    if (s.mode == Mode::routed && !s.printer && s.generation == generation) {
        s.resend = true;
        s.changed.notify_all();
    }
}

// Print this process's own messages: one line for each thing said, with how
// often when it was said more than once.
void print_directly(std::vector<Message> messages, const std::string &origin)
{
    std::vector<Gathered> lines;
    for (auto &message : messages) {
        auto it = std::find_if(lines.begin(), lines.end(),
                               [&](const Gathered &line) { return line.message.same(message); });
        if (it == lines.end()) {
            lines.push_back(Gathered{std::move(message), {0}, {0, 0}, {}});
        } else {
            it->copies.insert(it->copies.end(), {0, 0});
        }
    }
    for (const auto &line : lines) {
        print_message(line.message.severity, origin, printed_text(line));
    }
}

// The printer closes: what it has not confirmed, this process prints.
void print_now_if(std::uint64_t generation);
void on_closing(std::uint64_t generation)
{
    print_now_if(generation);
}

// The worker's first step: it listens to what concerns it (the printer: the
// others' messages, after it checked that it is the node's lowest rank; the
// others: what the printer says), and to the launcher's loss.  The printer
// then says it is ready, so that those who sent before it listened send
// again.  Called and returns locked; false when nothing can be listened to
// (all went out directly).
bool listen(State &s, std::unique_lock<std::mutex> &guard, datastore::Store &store,
            std::uint64_t generation)
{
    const bool printer = s.printer;
    guard.unlock();
    bool listening = true;
    std::size_t local_size = 0;
    if (printer) {
        auto peers = store.local_peers();
        if (peers && !peers->empty() && peers->front() == store.self().rank) {
            local_size = peers->size();
            listening = static_cast<bool>(
                store.on_event(code_said, [generation](const datastore::ProcId &source,
                                                       const datastore::InfoList &info) {
                    on_said(generation, source, info);
                }));
        } else {
            listening = false; // PMIx's local rank is not the lowest: nobody prints
        }
    } else {
        listening =
            store.on_event(
                code_printed,
                [generation](const datastore::ProcId &, const datastore::InfoList &info) {
                    on_printed(generation, info);
                }) &&
            store.on_event(code_ready,
                           [generation](const datastore::ProcId &, const datastore::InfoList &) {
                               on_ready(generation);
                           }) &&
            store.on_event(code_closing,
                           [generation](const datastore::ProcId &, const datastore::InfoList &) {
                               on_closing(generation);
                           });
    }
    // Without the launcher, nobody can hand anything on: all goes out now.
    (void)store.on_launcher_lost([generation] { print_now_if(generation); });
    if (listening && printer) {
        (void)store.notify(code_ready, {}, datastore::Store::EventRange::node);
    }
    guard.lock();
    if (!listening) {
        s.mode = Mode::direct;
        std::vector<Message> own = std::move(s.outbox);
        s.outbox.clear();
        guard.unlock();
        print_directly(std::move(own), origin_of({s.rank}, s.node));
        guard.lock();
        return false;
    }
    if (printer) {
        s.local_size = local_size;
    }
    return true;
}

// The worker of a routed process: sends (or, the printer, gathers) what this
// process says, prints what is due, and gives up on what the printer does
// not confirm.  PMIx's calls block, so they are made here, never from the
// reporting thread (which may be PMIx's own, in an event handler).
void work()
{
    auto &s = state();
    std::unique_lock guard(s.lock);
    datastore::Store &store = *s.store;
    const std::uint64_t generation = s.generation;
    const std::string own_origin = origin_of({s.rank}, s.node);
    if (!listen(s, guard, store, generation)) {
        return;
    }
    for (;;) {
        const auto now = Clock::now();
        std::vector<Message> to_send;
        std::vector<Message> to_print; // by this process, as its own
        std::vector<Gathered> due;
        std::optional<Clock::time_point> wake;
        if (s.printer) {
            for (const auto &message : s.outbox) {
                gather(s, message, s.rank, now);
            }
            s.outbox.clear();
            for (auto it = s.gathered.begin(); it != s.gathered.end();) {
                const auto deadline = it->first + s.window;
                if (it->ranks.size() >= s.local_size || now >= deadline) {
                    std::sort(it->ranks.begin(), it->ranks.end());
                    if (s.printed.size() == printed_kept) {
                        s.printed.erase(s.printed.begin());
                    }
                    s.printed.push_back(*it);
                    due.push_back(std::move(*it));
                    it = s.gathered.erase(it);
                } else {
                    wake = wake ? std::min(*wake, deadline) : deadline;
                    ++it;
                }
            }
        } else {
            if (s.resend) {
                for (const auto &sent : s.unconfirmed) {
                    to_send.push_back(sent.message);
                }
                s.resend = false;
            }
            for (auto &message : s.outbox) {
                to_send.push_back(message);
                s.unconfirmed.push_back(Sent{std::move(message), now});
            }
            s.outbox.clear();
            for (auto it = s.unconfirmed.begin(); it != s.unconfirmed.end();) {
                const auto deadline = it->when + s.window + grace;
                if (now >= deadline) {
                    to_print.push_back(std::move(it->message));
                    it = s.unconfirmed.erase(it);
                } else {
                    wake = wake ? std::min(*wake, deadline) : deadline;
                    ++it;
                }
            }
        }
        std::vector<Gathered> again = std::move(s.confirm_again);
        s.confirm_again.clear();
        if (!to_send.empty() || !to_print.empty() || !due.empty() || !again.empty()) {
            guard.unlock();
            for (const auto &gathered : again) {
                (void)store.notify(code_printed, printed_info(gathered),
                                   datastore::Store::EventRange::node);
            }
            print_directly(std::move(to_print), own_origin);
            for (const auto &gathered : due) {
                print_message(gathered.message.severity, origin_of(gathered.ranks, s.node),
                              printed_text(gathered));
                (void)store.notify(code_printed, printed_info(gathered),
                                   datastore::Store::EventRange::node);
            }
            std::vector<Message> failed;
            for (const auto &message : to_send) {
                if (!store.notify(code_said, info_of(message),
                                  datastore::Store::EventRange::node)) {
                    failed.push_back(message);
                }
            }
            guard.lock();
            for (const auto &message : failed) {
                // The printer cannot be told: say it here, once.
                const auto before = s.unconfirmed.size();
                std::erase_if(s.unconfirmed, [&](const Sent &sent) {
                    return sent.message.same(message) && sent.message.seq == message.seq;
                });
                if (s.unconfirmed.size() != before) {
                    guard.unlock();
                    print_message(message.severity, own_origin, message.text);
                    guard.lock();
                }
            }
            continue;
        }
        if (s.stopping && s.outbox.empty() && s.gathered.empty() &&
            (s.printer || s.unconfirmed.empty())) {
            return;
        }
        if (wake) {
            s.changed.wait_until(guard, *wake);
        } else {
            s.changed.wait(guard);
        }
    }
}

// This process prints its own from now, beginning with what it holds.
// Called locked; returns unlocked.
void go_direct(State &s, std::unique_lock<std::mutex> &guard)
{
    auto held = std::move(s.outbox);
    s.outbox.clear();
    s.mode = Mode::direct;
    guard.unlock();
    print_directly(std::move(held), message_origin());
}

} // namespace

std::string format_ranks(std::vector<std::uint32_t> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string out;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
            ++j;
        }
        if (!out.empty()) {
            out += ',';
        }
        out += std::to_string(ranks[i]);
        if (j > i) {
            out += '-';
            out += std::to_string(ranks[j]);
        }
        i = j + 1;
    }
    return out;
}

void hold()
{
    auto &s = state();
    const char *rank = std::getenv("PMIX_RANK");
    if (rank == nullptr || std::getenv("PMIX_NAMESPACE") == nullptr) {
        return;
    }
    char *end = nullptr;
    const unsigned long value = std::strtoul(rank, &end, 10);
    if (end == rank || *end != '\0' || value > UINT32_MAX) {
        return;
    }
    {
        const std::lock_guard guard(s.lock);
        if (s.mode != Mode::direct) {
            return; // held or routed already
        }
        s.client = true;
        s.rank = static_cast<std::uint32_t>(value);
        s.mode = Mode::holding;
        if (!s.at_exit) {
            s.at_exit = true;
            std::atexit(release_at_exit);
        }
    }
    set_message_origin(origin_of({s.rank}, host_name()));
    set_message_router(route);
}

void attach(datastore::Store &store)
{
    auto &s = state();
    std::unique_lock guard(s.lock);
    if (!s.client || s.mode == Mode::routed) {
        return;
    }
    // A process of a launcher's job names its rank; only PMIx carries the
    // events a node's printer needs (PMI has none).
    const bool several = store.backend() != "local" && store.job_size() > 1;
    if (several) {
        s.rank = store.self().rank;
        s.node = store.node_name();
        guard.unlock();
        set_message_origin(origin_of({s.rank}, s.node));
        guard.lock();
    } else {
        // A job of one, or PMIx could not be joined: a process alone.
        guard.unlock();
        set_message_origin({});
        guard.lock();
    }
    if (!several || store.backend() != "pmix" || !mca::message_aggregate() ||
        store.local_size() <= 1) {
        // Nobody to print for: this process says its own.
        go_direct(s, guard);
        return;
    }
    // Nothing more here, where every process of a job passes: the node's
    // printer (its local rank 0) starts its worker now, to listen; any other
    // process only when it has something to say.
    ++s.generation;
    s.store = &store;
    s.printer = store.local_rank() == 0;
    s.local_size = store.local_size();
    s.window = mca::message_window();
    s.stopping = false;
    s.resend = false;
    s.gathered.clear();
    s.printed.clear();
    s.confirm_again.clear();
    s.unconfirmed.clear();
    // A process that exits without meridian_finalize releases too.  This
    // handler is registered after the datastore's own static came to be, so
    // it runs before that static's destructor ends PMIx: the worker never
    // outlives the store.
    if (!s.at_exit_routed) {
        s.at_exit_routed = true;
        std::atexit(release_at_exit);
    }
    s.mode = Mode::routed;
    if (s.printer || !s.outbox.empty()) {
        start_worker(s, guard);
    }
}

void end_of_start(bool failed)
{
    auto &s = state();
    bool open_store = false;
    {
        const std::lock_guard guard(s.lock);
        if (s.mode != Mode::holding) {
            // Routed already (the datastore opened during start-up), or
            // nothing held.
            open_store = false;
        } else if (s.outbox.empty()) {
            s.mode = Mode::direct; // a quiet start; the datastore attaches later
        } else {
            open_store = true;
        }
    }
    if (open_store) {
        // A datastore opened before this start (by a tool) was not attached.
        if (auto opened = datastore::store(); opened) {
            attach(**opened);
        }
        bool held = false;
        {
            const std::lock_guard guard(s.lock);
            held = s.mode == Mode::holding;
        }
        if (held) {
            release(); // no datastore to hand them on with: they are this process's
        }
    }
    if (failed) {
        release();
    }
}

void release()
{
    auto &s = state();
    std::unique_lock guard(s.lock);
    if (s.mode == Mode::routed) {
        // The worker ends when all is printed (the printer: within the
        // window) or confirmed; it gives up on an unconfirmed message by
        // itself.
        s.stopping = true;
        s.changed.notify_all();
    }
    // A worker that print_now stopped is joined here too.
    std::thread worker = std::move(s.worker);
    datastore::Store *store = s.mode == Mode::routed && s.printer ? s.store : nullptr;
    guard.unlock();
    if (worker.joinable()) {
        worker.join();
    }
    if (store != nullptr) {
        // All it gathered is printed: the others print their own from now,
        // without waiting for it.
        (void)store->notify(code_closing, {}, datastore::Store::EventRange::node);
    }
    guard.lock();
    s.mode = Mode::direct;
    s.store = nullptr;
    auto left = std::move(s.outbox);
    s.outbox.clear();
    guard.unlock();
    print_directly(std::move(left), message_origin());
}

void print_now()
{
    auto &s = state();
    std::unique_lock guard(s.lock);
    if (s.mode == Mode::direct) {
        return;
    }
    std::vector<Message> own = std::move(s.outbox);
    s.outbox.clear();
    for (auto &sent : s.unconfirmed) {
        own.push_back(std::move(sent.message));
    }
    s.unconfirmed.clear();
    std::vector<Gathered> gathered = std::move(s.gathered);
    s.gathered.clear();
    s.mode = Mode::direct;
    s.stopping = true;
    s.changed.notify_all();
    const std::string node = s.node.empty() ? host_name() : s.node;
    guard.unlock();
    for (auto &entry : gathered) {
        std::sort(entry.ranks.begin(), entry.ranks.end());
        print_message(entry.message.severity, origin_of(entry.ranks, node), printed_text(entry));
    }
    print_directly(std::move(own), message_origin());
}

namespace
{

// exit runs no C++ boundary: nothing may escape.
void release_at_exit()
{
    try {
        release();
    } catch (...) {
    }
}

void print_now_if(std::uint64_t generation)
{
    {
        auto &s = state();
        const std::lock_guard check(s.lock);
        if (s.generation != generation || s.mode != Mode::routed) {
            return;
        }
    }
    print_now();
}

} // namespace

} // namespace meridian::job_messages
