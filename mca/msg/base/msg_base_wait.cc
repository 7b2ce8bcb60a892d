// SPDX-License-Identifier: BSD-3-Clause
// Waiting: progress until the channels complete, the time limit passes
// (MERIDIAN_ERR_TIMEOUT) or a peer of one of them is known dead
// (MERIDIAN_ERR_UNREACH): processes of this node are watched through their
// pids, others through their transport's word (a closed connection, a
// failed transfer).
#include <sched.h>

#include <chrono>
#include <string>
#include <thread>

#include "mca/msg/base/msg_layer.hpp"
#include "mca/msg/base/msg_proc.hpp"
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::msg
{

// Channels whose peer is found dead end: what the peer's transport still
// held of its messages is delivered first (those channels complete), the
// rest fail.  True when one of these channels failed so.
bool Layer::check_liveness(Channel *const *channels, std::size_t count)
{
    for (std::size_t i = 0; i < count; ++i) {
        Channel *channel = channels[i];
        if (channel == nullptr || channel->phase != Phase::active || channel->peer == job_.rank) {
            continue;
        }
        const Peer &p = peer(channel->peer);
        if (p.dead) {
            // Started after the death (a receive of a transport that matches
            // its own, which found nothing in the progress before): it ends
            // here.
            end_with_dead_peer(*channel);
            continue;
        }
        if (p.pid == 0) {
            continue; // another node: its transport and the time limit tell
        }
        if (auto why = proc::gone(p.pid, p.start_time)) {
            peer_died(channel->peer, "died: process " + std::to_string(p.pid) + " " + *why);
        }
    }
    for (std::size_t i = 0; i < count; ++i) {
        const Channel *channel = channels[i];
        if (channel != nullptr && channel->phase == Phase::done &&
            channel->status == MERIDIAN_ERR_UNREACH) {
            return true;
        }
    }
    return false;
}

void Layer::peer_died(int rank, const std::string &why)
{
    Peer &p = peer(rank);
    if (p.dead) {
        return;
    }
    // What it sent before it died is still good.
    if (p.transport != nullptr && p.transport->peer_died != nullptr) {
        p.transport->peer_died(p.transport, rank);
    }
    p.dead = true;
    p.death = why;
    for (auto &[raw, channel] : channels_) {
        if (channel->peer == rank) {
            choose_start(*channel); // the base's own, from now on
            if (channel->phase == Phase::active) {
                end_with_dead_peer(*channel);
            }
        }
    }
}

void Layer::say_death(int rank)
{
    Peer &p = peer(rank);
    if (p.death_said) {
        return;
    }
    p.death_said = true;
    meridian::report_error("msg: rank " + std::to_string(job_.rank) + " on node " +
                           node_name(job_.rank) + ": peer " + describe(rank) + " " + p.death);
}

void Layer::end_with_dead_peer(Channel &channel)
{
    say_death(channel.peer);
    detach(channel, false);
    complete(channel, MERIDIAN_ERR_UNREACH);
}

// A receive started after its peer died: a message that had all arrived
// (taken from its ring or its connection before the end) is delivered
// (true: the channel is complete, its status says how); one that can never
// be whole -- cut off, or announced and left with its dead sender -- is
// dropped, and the receive fails like any with nothing to take.
bool Layer::receive_from_dead(Peer &p, Channel &recv)
{
    if (recv.direction != MCA_MSG_RECV || recv.matching == nullptr ||
        recv.matching->unexpected.empty()) {
        return false;
    }
    Unexpected &first = *recv.matching->unexpected.front();
    if (first.kind != Unexpected::Kind::eager || first.arrived < first.total) {
        if (p.incoming.stash == &first) {
            p.incoming = Incoming{};
        }
        if (first.kind == Unexpected::Kind::eager) {
            unexpected_bytes_ -= first.total;
        } else {
            drop_unexpected(recv.peer, first);
        }
        recv.matching->unexpected.pop_front();
        return false;
    }
    recv.phase = Phase::active;
    recv.status = MERIDIAN_SUCCESS;
    start_recv_matched(p, recv);
    return true;
}

// A poll that found nothing: after a few microseconds of them, leave the
// core's execution resources to whoever shares it (the peer's CMA copy on a
// hyperthread sibling ran at half speed beside a tight spin).
void Layer::relax(std::uint32_t idle_polls)
{
    if (idle_polls < 256) {
        return;
    }
    const int pauses = idle_polls < 4096 ? 1 : 8;
    for (int i = 0; i < pauses; ++i) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#endif
    }
}

void Layer::idle(Clock::time_point since)
{
    // Sharing cores with the peers: give them the core at once.  Otherwise
    // spin, as Open MPI does (a yield hands the core to any other runnable
    // process for a whole time slice), and only rest during long waits.
    if (oversubscribed_) {
        ::sched_yield();
        return;
    }
    if (Clock::now() - since > std::chrono::seconds(1)) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

int Layer::wait(Channel *const *channels, std::size_t count, int timeout_ms)
{
    // Work a transport's take left for later is done by any wait, even one
    // for channels that are complete already.
    if (deferred_) {
        progress();
    }
    // Often all is done already (an eager send, a message that was there):
    // then not even the clock is read.
    bool pending = false;
    for (std::size_t i = 0; i < count && !pending; ++i) {
        pending = channels[i] != nullptr && channels[i]->phase == Phase::active;
    }
    if (!pending && count == 1) {
        // The common case, without the bookkeeping below.
        Channel *channel = channels[0];
        if (channel == nullptr || channel->phase != Phase::done) {
            return MERIDIAN_SUCCESS;
        }
        channel->phase = Phase::idle;
        return channel->status;
    }
    // The clock is read every 64th poll only, when it was idle (not in the
    // first: most waits end within a few polls), or at every idle poll for a
    // wait that only polls (timeout_ms 0): the limit counts from the first
    // such reading (microseconds late at most).
    const bool own_limit = timeout_ms < 0;
    const long limit_ms = own_limit ? params_.timeout_s * 1000L : timeout_ms;
    const bool unlimited = own_limit && params_.timeout_s == 0;
    Clock::time_point deadline{};
    Clock::time_point last_completion{};
    bool moved_lately = true;
    bool timed_out = false;
    bool unreachable = false;
    std::uint32_t idle_polls = 0;
    for (std::uint32_t spin = 0; pending; ++spin) {
        const std::uint64_t before = completed_;
        progress();
        if (completed_ != before) {
            moved_lately = true;
            idle_polls = 0;
        } else {
            relax(++idle_polls);
            if (oversubscribed_ || timeout_ms == 0 || (spin & 63) == 63) {
                const auto now = Clock::now();
                if (deadline == Clock::time_point{}) {
                    deadline = now + std::chrono::milliseconds(limit_ms);
                }
                if (moved_lately) {
                    last_completion = now;
                    moved_lately = false;
                }
                if (launcher_gone.load(std::memory_order_relaxed)) [[unlikely]] {
                    // Nothing started with this launcher can be relied on
                    // now: the wait says so rather than hang.
                    if (!said_launcher_gone_) {
                        said_launcher_gone_ = true;
                        meridian::report_error("msg: rank " + std::to_string(job_.rank) +
                                               ": waits fail: the launcher is gone");
                    }
                    unreachable = true;
                    break;
                }
                if (now >= next_liveness_) {
                    next_liveness_ = now + std::chrono::milliseconds(params_.liveness_ms);
                    // A dead peer's channels end here: those its transport
                    // still held the messages of complete, the others fail,
                    // and then the wait returns at once (the others' peers
                    // may wait on the dead one too).
                    if (check_liveness(channels, count)) {
                        unreachable = true;
                        break;
                    }
                }
                if (!unlimited && now >= deadline) {
                    timed_out = true;
                    break;
                }
                idle(last_completion);
            }
        }
        pending = false;
        for (std::size_t i = 0; i < count && !pending; ++i) {
            pending = channels[i] != nullptr && channels[i]->phase == Phase::active;
        }
    }
    int status = MERIDIAN_SUCCESS;
    std::size_t incomplete = 0;
    std::string which;
    for (std::size_t i = 0; i < count; ++i) {
        Channel *channel = channels[i];
        if (channel == nullptr) {
            continue;
        }
        if (channel->phase == Phase::done) {
            channel->phase = Phase::idle;
            if (status == MERIDIAN_SUCCESS) {
                status = channel->status;
            }
        } else if (channel->phase == Phase::active) {
            if (++incomplete <= 3) {
                which += (which.empty() ? "" : "; ") + channel_text(*channel);
            }
        }
    }
    if (unreachable) {
        return MERIDIAN_ERR_UNREACH;
    }
    if (timed_out) {
        // The caller's own limit (QMP_wait_for_barrier) is its business to
        // report; the base's limit is reported here.
        if (own_limit) {
            meridian::report_error(
                "msg: rank " + std::to_string(job_.rank) + ": a wait timed out after " +
                std::to_string(params_.timeout_s) + " s (msg_base_timeout) with " +
                std::to_string(incomplete) + " of " + std::to_string(count) +
                " channels incomplete: " + which + (incomplete > 3 ? "; ..." : ""));
        }
        return MERIDIAN_ERR_TIMEOUT;
    }
    return status;
}

} // namespace meridian::msg
