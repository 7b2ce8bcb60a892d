// SPDX-License-Identifier: BSD-3-Clause
// One process of the msg transports' tests: brings the transports up with
// meridian_mca_msg_base_start and drives its vtable directly.  msg_test.sh runs it
// under mpirun with 1, 2 and 4 processes, over sm (default), tcp (--mca msg
// ^sm) and libfabric (--mca msg ^sm, msg_ofi_provider=tcp).
//
//   msg_driver suite     every size 0 B - 4 MiB around each ring neighbour,
//                        strided blocks, one (peer, tag) on many channels in
//                        start order, sends before receives, size mismatch,
//                        readdress, self channels; prints "rank R: ok"
//   msg_driver kill      rank 1 SIGKILLs itself while rank 0 waits on it:
//                        rank 0 prints "rank 0: unreach after N ms: ok"
//   msg_driver timeout   rank 0 waits on rank 1, which never sends (run with
//                        msg_base_timeout=1): "rank 0: timeout after N ms: ok"
//   msg_driver planted   before the transport starts, each process makes
//                        a shared-memory segment under the name the
//                        transport used to give its own ring segment
//                        ("/meridian-<namespace>-<rank>"), as another job
//                        whose namespace reads the same would; after a
//                        message around the ring and the transport's stop
//                        the segment must be there with its bytes:
//                        "rank R: planted segment intact: ok"
//   msg_driver attacked DIR [hog]
//                        2 processes on the tcp path under attack
//                        (tcp_attack.sh): each writes its address, key and
//                        the namespace into DIR and serves its listener
//                        until DIR/go1 appears (with hog, rank 0 holds every
//                        descriptor it may open until then), exchanges
//                        messages, writes DIR/connected.R, serves again
//                        until DIR/go2, exchanges again: "rank R: values
//                        right after the attacks: ok"
//   msg_driver early     rank 1 sends three 16 MiB messages before rank 0
//                        starts their receives (1 s later; run with a small
//                        msg_base_unexpected_limit, on the tcp path or the
//                        rings without CMA): every byte right, and rank 1's
//                        sends complete only once they are received:
//                        "rank 1: sends waited N ms: ok"
//   msg_driver dead_sender
//                        rank 1 completes four sends and finalizes; rank 0
//                        had started the receive of the fourth (100000 B:
//                        25 ring slots without CMA, more than one progress
//                        takes) and waits for it only once rank 1 is gone;
//                        then it learns of rank 1's end (a receive it waits
//                        on fails) and starts the other three receives:
//                        every one takes its message: "rank 0: 4 messages
//                        of a dead sender: ok"
//   msg_driver last_words
//                        rank 0 starts receives of 0 B - 4 MiB and a burst
//                        of 32 x 60000 B from rank 1 and looks away for
//                        200 ms; rank 1 sends them, waits for its sends and
//                        ends at once (the transports stop, the process
//                        exits): every byte arrives, "rank 0: 41 last
//                        messages of a sender that ended: ok" (msg_exit.sh
//                        runs it many times over each transport)
//   msg_driver pingpong  half round-trip times rank 0 <-> 1 (not a test)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <meridian/mca/msg/base/base.h>
#include <meridian/mca/msg/msg.h>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>

namespace
{

mca_msg_base_module_t *tp = nullptr;
const mca_msg_job_t *job = nullptr;
int failures = 0;

void check(bool ok, const std::string &what)
{
    if (!ok) {
        ++failures;
        std::printf("rank %d: FAIL: %s\n", job != nullptr ? job->rank : -1, what.c_str());
        std::fflush(stdout);
    }
}

std::string code(int rc)
{
    return std::to_string(rc) + " (" + meridian_strerror(rc) + ")";
}

// A channel owned here (freed at scope exit).
class Chan
{
  public:
    Chan() = default;
    Chan(mca_msg_direction_t dir, int peer, std::uint64_t tag, std::vector<iovec> iov)
    {
        open(dir, peer, tag, std::move(iov));
    }
    Chan(mca_msg_direction_t dir, int peer, std::uint64_t tag, void *base, std::size_t n)
        : Chan(dir, peer, tag, std::vector<iovec>{{base, n}})
    {
    }
    Chan(const Chan &) = delete;
    Chan &operator=(const Chan &) = delete;
    Chan(Chan &&other) noexcept : ch_(std::exchange(other.ch_, nullptr)) {}
    ~Chan()
    {
        if (ch_ != nullptr) {
            tp->channel_free(tp, ch_);
        }
    }
    void open(mca_msg_direction_t dir, int peer, std::uint64_t tag, std::vector<iovec> iov)
    {
        std::size_t n = 0;
        for (const auto &b : iov) {
            n += b.iov_len;
        }
        mca_msg_channel_spec_t spec{dir, peer, tag, iov.data(), iov.size(), n, 0};
        const int rc = tp->channel_create(tp, &spec, &ch_);
        check(rc == MERIDIAN_SUCCESS, "channel_create: " + code(rc));
    }
    mca_msg_channel_t *get() const { return ch_; }
    // channel_release: a started transfer goes on without this handle.
    void release()
    {
        tp->channel_release(tp, ch_);
        ch_ = nullptr;
    }
    int start() const { return tp->start(tp, ch_); }
    int wait(int timeout_ms = -1) const { return tp->wait(tp, &ch_, 1, timeout_ms); }

  private:
    mca_msg_channel_t *ch_ = nullptr;
};

int wait_all(std::vector<mca_msg_channel_t *> chans, int timeout_ms = -1)
{
    return tp->wait(tp, chans.data(), chans.size(), timeout_ms);
}

// Every rank tells rank 0, rank 0 answers everyone (timeout_ms as a wait's:
// -1, the transport's msg_base_timeout).
void barrier(int timeout_ms = -1)
{
    constexpr std::uint64_t tag = 0xba77;
    if (job->size == 1) {
        return;
    }
    std::vector<Chan> chans;
    std::vector<mca_msg_channel_t *> raw;
    char dummy = 0;
    if (job->rank == 0) {
        for (int r = 1; r < job->size; ++r) {
            chans.emplace_back(MCA_MSG_RECV, r, tag, &dummy, 0);
        }
        for (auto &c : chans) {
            c.start();
            raw.push_back(c.get());
        }
        check(wait_all(raw, timeout_ms) == MERIDIAN_SUCCESS, "barrier gather");
        chans.clear();
        raw.clear();
        for (int r = 1; r < job->size; ++r) {
            chans.emplace_back(MCA_MSG_SEND, r, tag + 1, &dummy, 0);
        }
        for (auto &c : chans) {
            c.start();
            raw.push_back(c.get());
        }
        check(wait_all(raw, timeout_ms) == MERIDIAN_SUCCESS, "barrier release");
    } else {
        Chan up(MCA_MSG_SEND, 0, tag, &dummy, 0);
        Chan down(MCA_MSG_RECV, 0, tag + 1, &dummy, 0);
        down.start();
        up.start();
        check(wait_all({up.get(), down.get()}, timeout_ms) == MERIDIAN_SUCCESS, "barrier");
    }
}

unsigned char pattern(int src, std::size_t size, std::size_t i, int salt = 0)
{
    return static_cast<unsigned char>((i * 131 + size * 7 + static_cast<std::size_t>(src) * 31 +
                                       static_cast<std::size_t>(salt) * 17) >>
                                      1);
}

// The first byte of buf that differs from the pattern, or SIZE_MAX.
std::size_t first_bad(const std::vector<unsigned char> &buf, int src, std::size_t size, int salt)
{
    for (std::size_t i = 0; i < size; ++i) {
        if (buf[i] != pattern(src, size, i, salt)) {
            return i;
        }
    }
    return SIZE_MAX;
}

int next_rank()
{
    return (job->rank + 1) % job->size;
}
int prev_rank()
{
    return (job->rank + job->size - 1) % job->size;
}

// Contiguous messages of every size around the ring (to self with one process).
void test_sizes()
{
    std::vector<std::size_t> sizes = {
        0,       1,      7,     8,      31,     32,      63,
        64,      100,    1000,  1024,   4000,   4064,    4065,
        4096,    8128,   8129,  12000,  16383,  16384,   16385,
        32768,   65536,  65537, 100000, 262144, 1 << 20, (1 << 20) + 3,
        3000000, 4 << 20};
    for (std::size_t s = 1; s <= (4u << 20); s = s * 3 + 1) {
        sizes.push_back(s);
    }
    for (const std::size_t size : sizes) {
        std::vector<unsigned char> out(size + 1), in(size + 1, 0xee);
        for (std::size_t i = 0; i < size; ++i) {
            out[i] = pattern(job->rank, size, i);
        }
        Chan send(MCA_MSG_SEND, next_rank(), 7, out.data(), size);
        Chan recv(MCA_MSG_RECV, prev_rank(), 7, in.data(), size);
        // Twice on the same channels: persistent channels are restartable.
        for (int round = 0; round < 2; ++round) {
            check(recv.start() == MERIDIAN_SUCCESS, "start recv");
            check(send.start() == MERIDIAN_SUCCESS, "start send");
            const int rc = wait_all({send.get(), recv.get()});
            check(rc == MERIDIAN_SUCCESS, "size " + std::to_string(size) + ": wait " + code(rc));
            const std::size_t bad = first_bad(in, prev_rank(), size, 0);
            check(bad == SIZE_MAX,
                  "size " + std::to_string(size) + ": byte " + std::to_string(bad) + " differs");
            check(in[size] == 0xee, "size " + std::to_string(size) + ": wrote past the end");
            std::fill(in.begin(), in.end(), 0xee);
        }
    }
}

// Blocks of `block` bytes every `stride` bytes.
std::vector<iovec> strided(std::vector<unsigned char> &buf, std::size_t count, std::size_t block,
                           std::size_t stride)
{
    buf.assign(count * stride + 16, 0xee);
    std::vector<iovec> iov;
    for (std::size_t i = 0; i < count; ++i) {
        iov.push_back({buf.data() + i * stride, block});
    }
    return iov;
}

// Sender and receiver cut the same bytes into different blocks; blocks beyond
// every limit (ofi iov_limit 4, the rendezvous slot's inline list).
void test_strided()
{
    struct Shape {
        std::size_t scount, sblock, sstride, rcount, rblock, rstride;
    };
    const Shape shapes[] = {
        {3, 8, 16, 2, 12, 20},                // 24 B, within iov limits
        {100, 24, 40, 50, 48, 64},            // 2400 B: shm eager, ofi staging
        {1000, 24, 40, 3000, 8, 9},           // 24000 B: above the eager limit, fine blocks
        {4000, 1024, 1500, 2000, 2048, 2100}, // 4 MB from fine blocks: through the ring
        {500, 8192, 8200, 4000, 1024, 1500},  // 4 MB of coarse blocks into fine ones: through
                                              // the ring after the receiver's CTS
        {1000, 4096, 4100, 2000, 2048, 2100}, // 4 MB, 1000 coarse blocks: the list is read by
                                              // CMA; the receiver's are fine: it reads all
        {1000, 4096, 4100, 500, 8192, 8200},  // both coarse: split copy, each list read by CMA
        {1, 65536, 65536, 64, 1024, 1030},    // contiguous into 64 blocks
    };
    int salt = 1;
    for (const Shape &s : shapes) {
        const std::size_t size = s.scount * s.sblock;
        std::vector<unsigned char> out, in;
        auto siov = strided(out, s.scount, s.sblock, s.sstride);
        auto riov = strided(in, s.rcount, s.rblock, s.rstride);
        std::size_t k = 0;
        for (auto &b : siov) {
            for (std::size_t i = 0; i < b.iov_len; ++i, ++k) {
                static_cast<unsigned char *>(b.iov_base)[i] = pattern(job->rank, size, k, salt);
            }
        }
        Chan send(MCA_MSG_SEND, next_rank(), 9, siov);
        Chan recv(MCA_MSG_RECV, prev_rank(), 9, riov);
        check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
        const int rc = wait_all({send.get(), recv.get()});
        const std::string what = "strided " + std::to_string(s.scount) + "x" +
                                 std::to_string(s.sblock) + " -> " + std::to_string(s.rcount) +
                                 "x" + std::to_string(s.rblock);
        check(rc == MERIDIAN_SUCCESS, what + ": wait " + code(rc));
        k = 0;
        std::size_t bad = SIZE_MAX;
        for (auto &b : riov) {
            for (std::size_t i = 0; i < b.iov_len; ++i, ++k) {
                if (bad == SIZE_MAX && static_cast<unsigned char *>(b.iov_base)[i] !=
                                           pattern(prev_rank(), size, k, salt)) {
                    bad = k;
                }
            }
        }
        check(bad == SIZE_MAX, what + ": byte " + std::to_string(bad) + " differs");
        // The gaps between blocks stay untouched.
        bool gaps = true;
        for (std::size_t i = 0; i < s.rcount && gaps; ++i) {
            for (std::size_t g = i * s.rstride + s.rblock; g < (i + 1) * s.rstride; ++g) {
                gaps = gaps && in[g] == 0xee;
            }
        }
        check(gaps, what + ": wrote between the blocks");
        ++salt;
    }
}

// Many channels with one (peer, tag) match in start order; sends started
// (and, for small ones, completed) before the receives exist.
void test_order(std::size_t size, bool sends_first)
{
    constexpr int count = 8;
    std::vector<std::vector<unsigned char>> out(count), in(count);
    std::vector<Chan> sends, recvs;
    for (int i = 0; i < count; ++i) {
        out[i].resize(size);
        in[i].assign(size, 0xee);
        for (std::size_t b = 0; b < size; ++b) {
            out[i][b] = pattern(job->rank, size, b, 100 + i);
        }
        sends.emplace_back(MCA_MSG_SEND, next_rank(), 11, out[i].data(), size);
        recvs.emplace_back(MCA_MSG_RECV, prev_rank(), 11, in[i].data(), size);
    }
    std::vector<mca_msg_channel_t *> all;
    // Start order differs from creation order: start order is what counts.
    const int order[count] = {3, 0, 7, 1, 6, 2, 5, 4};
    if (sends_first) {
        for (int i : order) {
            check(sends[static_cast<std::size_t>(i)].start() == MERIDIAN_SUCCESS, "start send");
            all.push_back(sends[static_cast<std::size_t>(i)].get());
        }
        barrier(); // every process's sends are out before any receive starts
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (int i : order) {
        check(recvs[static_cast<std::size_t>(i)].start() == MERIDIAN_SUCCESS, "start recv");
        all.push_back(recvs[static_cast<std::size_t>(i)].get());
    }
    if (!sends_first) {
        for (int i : order) {
            check(sends[static_cast<std::size_t>(i)].start() == MERIDIAN_SUCCESS, "start send");
            all.push_back(sends[static_cast<std::size_t>(i)].get());
        }
    }
    const int rc = wait_all(all);
    const std::string what = std::string("order (") +
                             (sends_first ? "sends first" : "receives first") + ", " +
                             std::to_string(size) + " B)";
    check(rc == MERIDIAN_SUCCESS, what + ": wait " + code(rc));
    for (int i = 0; i < count; ++i) {
        const std::size_t bad =
            first_bad(in[static_cast<std::size_t>(i)], prev_rank(), size, 100 + i);
        check(bad == SIZE_MAX, what + ": channel " + std::to_string(i) + " byte " +
                                   std::to_string(bad) + " differs");
    }
}

// A receive takes a message of its size or shorter, its blocks filled in
// order and the bytes after the message untouched; a longer message
// completes it with BAD_PARAM.  room: the receive's blocks.
void test_sizes(std::size_t sent, const std::vector<std::size_t> &room)
{
    std::size_t expected = 0;
    for (std::size_t block : room) {
        expected += block;
    }
    constexpr unsigned char untouched = 0xee;
    std::vector<unsigned char> out(sent), in(expected, untouched);
    for (std::size_t i = 0; i < sent; ++i) {
        out[i] = static_cast<unsigned char>(i % 251);
    }
    // The receive's blocks, 64 bytes apart (a strided face).
    std::vector<unsigned char> spaced(expected + 64 * room.size(), untouched);
    std::vector<iovec> blocks;
    std::size_t at = 0;
    for (std::size_t block : room) {
        blocks.push_back({spaced.data() + at, block});
        at += block + 64;
    }
    Chan send(MCA_MSG_SEND, next_rank(), 13, out.data(), sent);
    Chan recv = room.size() == 1 ? Chan(MCA_MSG_RECV, prev_rank(), 13, in.data(), expected)
                                 : Chan(MCA_MSG_RECV, prev_rank(), 13, blocks);
    check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
    const int rs = recv.wait();
    const int ss = send.wait();
    std::string what = std::to_string(sent) + " B into " + std::to_string(expected) + " B";
    if (room.size() > 1) {
        what += " in " + std::to_string(room.size()) + " blocks";
    }
    check(ss == MERIDIAN_SUCCESS, what + ": send gave " + code(ss));
    if (sent > expected) {
        check(rs == MERIDIAN_ERR_BAD_PARAM, what + ": receive gave " + code(rs));
    } else {
        check(rs == MERIDIAN_SUCCESS, what + ": receive gave " + code(rs));
        // The message in order, then the receive's old bytes.
        std::vector<unsigned char> got;
        if (room.size() == 1) {
            got = in;
        } else {
            for (const iovec &block : blocks) {
                const auto *p = static_cast<const unsigned char *>(block.iov_base);
                got.insert(got.end(), p, p + block.iov_len);
            }
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const auto *gap =
                    static_cast<const unsigned char *>(blocks[b].iov_base) + blocks[b].iov_len;
                check(std::all_of(gap, gap + 64, [](unsigned char c) { return c == untouched; }),
                      what + ": the gap after block " + std::to_string(b) + " was written");
            }
        }
        std::size_t bad = expected;
        for (std::size_t i = 0; i < expected && bad == expected; ++i) {
            const unsigned char want = i < sent ? out[i] : untouched;
            if (got[i] != want) {
                bad = i;
            }
        }
        check(bad == expected, what + ": byte " + std::to_string(bad) + " is wrong");
    }
    barrier();
    // The channels still work afterwards.
    std::vector<unsigned char> ok_in(8, 0), ok_out(8, 5);
    Chan s2(MCA_MSG_SEND, next_rank(), 14, ok_out.data(), 8);
    Chan r2(MCA_MSG_RECV, prev_rank(), 14, ok_in.data(), 8);
    check(r2.start() == MERIDIAN_SUCCESS && s2.start() == MERIDIAN_SUCCESS, "start");
    check(wait_all({s2.get(), r2.get()}) == MERIDIAN_SUCCESS && ok_in[7] == 5,
          what + ": the next message is lost");
}

void test_readdress()
{
    std::vector<unsigned char> a(100, 1), b(300, 2), ra(100, 0), rb(300, 0);
    Chan send(MCA_MSG_SEND, next_rank(), 15, a.data(), a.size());
    Chan recv(MCA_MSG_RECV, prev_rank(), 15, ra.data(), ra.size());
    check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
    check(wait_all({send.get(), recv.get()}) == MERIDIAN_SUCCESS && ra[99] == 1,
          "readdress: first");
    const iovec nb{b.data(), b.size()};
    const iovec nrb[2] = {{rb.data(), 150}, {rb.data() + 150, 150}};
    check(tp->channel_readdress(tp, send.get(), &nb, 1) == MERIDIAN_SUCCESS, "readdress send");
    check(tp->channel_readdress(tp, recv.get(), nrb, 2) == MERIDIAN_SUCCESS, "readdress recv");
    check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
    // While started, a channel cannot move.
    check(tp->channel_readdress(tp, recv.get(), nrb, 2) == MERIDIAN_ERR_BAD_PARAM ||
              recv.get() == nullptr,
          "readdress of a started channel");
    const int rc = wait_all({send.get(), recv.get()});
    check(rc == MERIDIAN_SUCCESS, "readdress: wait " + code(rc));
    check(rb[0] == 2 && rb[299] == 2 && ra[0] == 1, "readdress: data went to the old memory");
}

// Self channels: small (copied at once) and large (copied at match), sends first.
void test_self()
{
    for (std::size_t size :
         {std::size_t{0}, std::size_t{8}, std::size_t{5000}, std::size_t{300000}}) {
        std::vector<unsigned char> out(size), in(size + 1, 0xee);
        for (std::size_t i = 0; i < size; ++i) {
            out[i] = pattern(job->rank, size, i, 77);
        }
        Chan send(MCA_MSG_SEND, job->rank, 17, out.data(), size);
        Chan recv(MCA_MSG_RECV, job->rank, 17, in.data(), size);
        check(send.start() == MERIDIAN_SUCCESS, "self start send");
        check(recv.start() == MERIDIAN_SUCCESS, "self start recv");
        const int rc = wait_all({send.get(), recv.get()});
        check(rc == MERIDIAN_SUCCESS, "self " + std::to_string(size) + ": " + code(rc));
        check(first_bad(in, job->rank, size, 77) == SIZE_MAX && in[size] == 0xee,
              "self " + std::to_string(size) + ": data differs");
    }
    check(std::strcmp(tp->path_name(tp, job->rank), "self") == 0,
          std::string("path to self: ") + tp->path_name(tp, job->rank));
}

void test_bad_input()
{
    char c = 0;
    iovec b{&c, 1};
    mca_msg_channel_spec_t spec{MCA_MSG_SEND, job->size, 1, &b, 1, 1, 0};
    mca_msg_channel_t *ch = nullptr;
    check(tp->channel_create(tp, &spec, &ch) == MERIDIAN_ERR_BAD_PARAM, "peer out of range");
    spec.peer = 0;
    spec.nbytes = 2;
    check(tp->channel_create(tp, &spec, &ch) == MERIDIAN_ERR_BAD_PARAM, "size disagreeing");
    Chan send(MCA_MSG_SEND, job->rank, 19, &c, 1);
    Chan recv(MCA_MSG_RECV, job->rank, 19, &c, 1);
    check(send.start() == MERIDIAN_SUCCESS, "start");
    check(send.start() == MERIDIAN_ERR_BAD_PARAM, "starting a started channel");
    check(recv.start() == MERIDIAN_SUCCESS, "start");
    check(wait_all({send.get(), recv.get()}) == MERIDIAN_SUCCESS, "wait");
    int complete = 0;
    check(tp->test(tp, send.get(), &complete) == MERIDIAN_SUCCESS && complete == 1,
          "test of an idle channel");
}

// A freed started channel does not disturb what follows.
void test_free_started()
{
    std::vector<unsigned char> in(64, 0), out(64, 9);
    {
        Chan recv(MCA_MSG_RECV, prev_rank(), 21, in.data(), in.size());
        check(recv.start() == MERIDIAN_SUCCESS, "start");
    } // freed while started: nothing was sent to it
    barrier();
    Chan send(MCA_MSG_SEND, next_rank(), 21, out.data(), out.size());
    Chan recv(MCA_MSG_RECV, prev_rank(), 21, in.data(), in.size());
    check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
    check(wait_all({send.get(), recv.get()}) == MERIDIAN_SUCCESS && in[63] == 9,
          "after freeing a started receive");
    // Pairs of processes (a process without a partner pairs with itself).
    const int partner = (job->rank ^ 1) < job->size ? job->rank ^ 1 : job->rank;
    std::vector<unsigned char> big_out(1 << 20, 3), big_in(1 << 20, 0);
    unsigned char token_out = 1, token_in = 0;
    Chan token_send(MCA_MSG_SEND, partner, 23, &token_out, 1);
    Chan token_recv(MCA_MSG_RECV, partner, 23, &token_in, 1);
    auto token = [&] {
        check(token_recv.start() == MERIDIAN_SUCCESS && token_send.start() == MERIDIAN_SUCCESS &&
                  wait_all({token_send.get(), token_recv.get()}) == MERIDIAN_SUCCESS,
              "token");
    };
    if (partner != job->rank && std::string(tp->path_name(tp, partner)) == "sm+cma") {
        // A large receive freed while the sender may still be writing the
        // tail into it (split copy): the free waits for the sender's DONE.
        // The lower rank sends; the token comes after its request on the
        // ring, so the receive has matched it (and split: it has no large
        // send of its own out) when the token is in.
        if (job->rank < partner) {
            Chan big_send(MCA_MSG_SEND, partner, 22, big_out.data(), big_out.size());
            check(big_send.start() == MERIDIAN_SUCCESS, "start");
            token();
            const int rc = big_send.wait();
            check(rc == MERIDIAN_SUCCESS, "large send to a receive freed early: " + code(rc));
        } else {
            Chan big_recv(MCA_MSG_RECV, partner, 22, big_in.data(), big_in.size());
            check(big_recv.start() == MERIDIAN_SUCCESS, "start");
            token();
        }
    } else {
        // Elsewhere: both send, then free the receive once their own send
        // is complete (the token says the partner's message has started).
        Chan big_recv(MCA_MSG_RECV, partner, 22, big_in.data(), big_in.size());
        Chan big_send(MCA_MSG_SEND, partner, 22, big_out.data(), big_out.size());
        check(big_recv.start() == MERIDIAN_SUCCESS && big_send.start() == MERIDIAN_SUCCESS,
              "start");
        token();
        const int rc = big_send.wait();
        check(rc == MERIDIAN_SUCCESS, "large send to a receive freed early: " + code(rc));
    }
    barrier();
}

// Blocks of a message of `size` bytes in buf: one, or (fine) 72-byte blocks
// 8 bytes apart, too fine for CMA (msg_sm_cma_min_block).
std::vector<iovec> layout(std::vector<unsigned char> &buf, std::size_t size, bool fine)
{
    if (!fine) {
        buf.assign(size + 1, 0xee);
        return {{buf.data(), size}};
    }
    return strided(buf, size / 72, 72, 80);
}

void fill_blocks(const std::vector<iovec> &iov, std::size_t size, int salt)
{
    std::size_t k = 0;
    for (const iovec &b : iov) {
        for (std::size_t i = 0; i < b.iov_len; ++i, ++k) {
            static_cast<unsigned char *>(b.iov_base)[i] = pattern(job->rank, size, k, salt);
        }
    }
}

// Empty when the blocks hold message `salt` of `src`; else what they hold
// ("byte 0 is message 2's", "byte 5 is 238").
std::string holds(const std::vector<iovec> &iov, int src, std::size_t size, int salt)
{
    std::size_t k = 0;
    for (const iovec &b : iov) {
        for (std::size_t i = 0; i < b.iov_len; ++i, ++k) {
            const unsigned char got = static_cast<const unsigned char *>(b.iov_base)[i];
            if (got != pattern(src, size, k, salt)) {
                for (int other = 201; other <= 203; ++other) {
                    if (got == pattern(src, size, k, other)) {
                        return "byte " + std::to_string(k) + " is message " +
                               std::to_string(other - 200) + "'s";
                    }
                }
                return "byte " + std::to_string(k) + " is " + std::to_string(got);
            }
        }
    }
    return {};
}

// Channels released while started (channel_release, QMP_free_msghandle's
// free) complete on their own: the messages after them on the (peer, tag)
// are not shifted.  Around the ring, at sizes of every protocol (one slot,
// ring fragments, CMA, CMA split copy; fine blocks: through the ring after a
// rendezvous request), in both orders (released before the peer's part, or
// after).
void test_release_started()
{
    constexpr std::uint64_t tag = 33;
    int round = 0;
    for (const std::size_t given : {std::size_t{8}, std::size_t{10000}, std::size_t{20000},
                                    std::size_t{40000}, std::size_t{1} << 20}) {
        for (const int shape : {0, 1, 2}) { // fine: 1 the receives, 2 the sends
            const bool fine_recv = shape == 1, fine_send = shape == 2;
            const std::size_t size =
                shape == 0 ? given : std::max<std::size_t>(72, given / 72 * 72);
            for (const bool releasing_first : {true, false}) {
                const std::string what = "size " + std::to_string(size) +
                                         (shape == 0  ? ""
                                          : fine_recv ? " into fine blocks"
                                                      : " from fine blocks") +
                                         (releasing_first ? ", released first" : ", peer first");
                ++round;
                // A released send: message 1, then 2 on another channel.
                {
                    std::vector<unsigned char> o1, o2, i1, i2;
                    auto so1 = layout(o1, size, fine_send), so2 = layout(o2, size, fine_send);
                    auto ri1 = layout(i1, size, fine_recv), ri2 = layout(i2, size, fine_recv);
                    fill_blocks(so1, size, 201);
                    fill_blocks(so2, size, 202);
                    Chan s1(MCA_MSG_SEND, next_rank(), tag, so1),
                        s2(MCA_MSG_SEND, next_rank(), tag, so2);
                    Chan r1(MCA_MSG_RECV, prev_rank(), tag, ri1),
                        r2(MCA_MSG_RECV, prev_rank(), tag, ri2);
                    if (!releasing_first) {
                        check(r1.start() == MERIDIAN_SUCCESS && r2.start() == MERIDIAN_SUCCESS,
                              "start");
                        barrier();
                    }
                    check(s1.start() == MERIDIAN_SUCCESS, "start");
                    s1.release();
                    if (releasing_first) {
                        barrier();
                        check(r1.start() == MERIDIAN_SUCCESS && r2.start() == MERIDIAN_SUCCESS,
                              "start");
                    }
                    check(s2.start() == MERIDIAN_SUCCESS, "start");
                    const int rc = wait_all({r1.get(), r2.get(), s2.get()});
                    check(rc == MERIDIAN_SUCCESS, "released send, " + what + ": wait " + code(rc));
                    const std::string h1 = holds(ri1, prev_rank(), size, 201);
                    const std::string h2 = holds(ri2, prev_rank(), size, 202);
                    check(h1.empty(), "released send, " + what + ": the first receive: " + h1);
                    check(h2.empty(), "released send, " + what + ": the second receive: " + h2);
                    barrier(); // the released send's memory may go
                }
                // A released receive: it takes message 1, the next ones 2 and 3.
                {
                    std::vector<unsigned char> o1, o2, o3, i0, i1, i2;
                    auto so1 = layout(o1, size, fine_send), so2 = layout(o2, size, fine_send),
                         so3 = layout(o3, size, fine_send);
                    auto ri0 = layout(i0, size, fine_recv), ri1 = layout(i1, size, fine_recv),
                         ri2 = layout(i2, size, fine_recv);
                    fill_blocks(so1, size, 201);
                    fill_blocks(so2, size, 202);
                    fill_blocks(so3, size, 203);
                    Chan s1(MCA_MSG_SEND, next_rank(), tag, so1),
                        s2(MCA_MSG_SEND, next_rank(), tag, so2),
                        s3(MCA_MSG_SEND, next_rank(), tag, so3);
                    Chan r0(MCA_MSG_RECV, prev_rank(), tag, ri0),
                        r1(MCA_MSG_RECV, prev_rank(), tag, ri1),
                        r2(MCA_MSG_RECV, prev_rank(), tag, ri2);
                    if (!releasing_first) {
                        check(s1.start() == MERIDIAN_SUCCESS, "start");
                        barrier();
                    }
                    check(r0.start() == MERIDIAN_SUCCESS, "start");
                    r0.release();
                    if (releasing_first) {
                        barrier();
                        check(s1.start() == MERIDIAN_SUCCESS, "start");
                    }
                    check(s2.start() == MERIDIAN_SUCCESS && s3.start() == MERIDIAN_SUCCESS &&
                              r1.start() == MERIDIAN_SUCCESS && r2.start() == MERIDIAN_SUCCESS,
                          "start");
                    const int rc = wait_all({s1.get(), s2.get(), s3.get(), r1.get(), r2.get()});
                    check(rc == MERIDIAN_SUCCESS,
                          "released receive, " + what + ": wait " + code(rc));
                    const std::string h1 = holds(ri1, prev_rank(), size, 202);
                    const std::string h2 = holds(ri2, prev_rank(), size, 203);
                    check(h1.empty(),
                          "released receive, " + what + ": the receive after it: " + h1);
                    check(h2.empty(),
                          "released receive, " + what + ": the receive after that: " + h2);
                    barrier();
                    const std::string h0 = holds(ri0, prev_rank(), size, 201);
                    check(h0.empty(), "released receive, " + what + ": its own memory: " + h0);
                }
            }
        }
    }
}

// Nothing this process published through the modex is an address of its
// own: the ranges of /proc/self/maps against every 8-byte word of each
// value the transport and the base put (the keys that exist, or existed:
// "ofi.probe" held a pointer once, when one component held every transport).
void test_modex_addresses()
{
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    if (FILE *maps = std::fopen("/proc/self/maps", "r")) {
        unsigned long long lo = 0, hi = 0;
        char line[512];
        while (std::fgets(line, sizeof line, maps) != nullptr) {
            if (std::sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
                ranges.emplace_back(lo, hi);
            }
        }
        std::fclose(maps);
    }
    check(!ranges.empty(), "modex: /proc/self/maps gave no ranges");
    for (const char *key :
         {"node", "proc", "offers", "ofi.mode", "ofi.proc", "ofi.shm", "ofi.probe", "ofi.cma",
          "sm.seg", "sm.cma", "ofi.addr", "ofi.prov", "tcp.addr"}) {
        std::vector<unsigned char> value(4096);
        std::size_t len = value.size();
        if (meridian_mca_msg_base_modex_get(job->rank, key, value.data(), &len) !=
            MERIDIAN_SUCCESS) {
            continue;
        }
        for (std::size_t at = 0; at + 8 <= len; at += 8) {
            std::uint64_t word = 0;
            std::memcpy(&word, value.data() + at, sizeof word);
            for (const auto &[lo, hi] : ranges) {
                if (word >= lo && word < hi) {
                    char text[160];
                    std::snprintf(text, sizeof text,
                                  "modex: the value of %s holds an address of this process "
                                  "(0x%" PRIx64 " at byte %zu)",
                                  key, word, at);
                    check(false, text);
                    break;
                }
            }
        }
    }
}

// The path's "+cma" says that the peer may read this process's memory
// (process_vm_readv).  Checked against a read of the test's own: every
// process sends its pid and a word's address and value to the next one,
// which tries to read it and says whether it could.
void test_cma_path()
{
    if (job->size == 1) {
        return;
    }
    struct Probe {
        std::int64_t pid;
        std::uint64_t address;
        std::uint64_t value;
    };
    static std::uint64_t word = 0;
    word = 0x636d612d70726f62ULL ^ static_cast<std::uint64_t>(::getpid());
    Probe mine{::getpid(), reinterpret_cast<std::uint64_t>(&word), word};
    Probe theirs{};
    {
        Chan send(MCA_MSG_SEND, next_rank(), 29, &mine, sizeof mine);
        Chan recv(MCA_MSG_RECV, prev_rank(), 29, &theirs, sizeof theirs);
        check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
        check(wait_all({send.get(), recv.get()}) == MERIDIAN_SUCCESS, "cma: probe exchange");
    }
    std::uint64_t got = 0;
    iovec local{&got, sizeof got};
    iovec remote{reinterpret_cast<void *>(theirs.address), sizeof got};
    unsigned char i_read_prev =
        ::process_vm_readv(static_cast<pid_t>(theirs.pid), &local, 1, &remote, 1, 0) ==
            static_cast<ssize_t>(sizeof got) &&
        got == theirs.value;
    unsigned char next_reads_me = 2;
    {
        Chan send(MCA_MSG_SEND, prev_rank(), 30, &i_read_prev, 1);
        Chan recv(MCA_MSG_RECV, next_rank(), 30, &next_reads_me, 1);
        check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
        check(wait_all({send.get(), recv.get()}) == MERIDIAN_SUCCESS, "cma: result exchange");
    }
    const std::string path = tp->path_name(tp, next_rank());
    if (path != "sm" && path != "sm+cma") {
        return; // other transports: no CMA
    }
    bool cma_on = true;
    char value[32] = "";
    if (const int index = meridian_mca_base_param_find("msg_sm_cma");
        index >= 0 && meridian_mca_base_param_value_string(index, value, sizeof value) >= 0) {
        cma_on = std::strcmp(value, "off") != 0;
    }
    const std::string expected = cma_on && next_reads_me == 1 ? "sm+cma" : "sm";
    check(path == expected, "cma: the path to rank " + std::to_string(next_rank()) + " is " + path +
                                ", expected " + expected + " (msg_sm_cma=" + value + ", it can " +
                                (next_reads_me == 1 ? "" : "not ") + "read this process's memory)");
}

// Whether a library (its file name's start, "/libfabric.so") is mapped into
// this process: the ofi and ucx components open libfabric and UCX only for
// peers that need them (their constructors probe hardware, hook memory).
bool mapped(const char *library)
{
    std::FILE *maps = std::fopen("/proc/self/maps", "r");
    if (maps == nullptr) {
        return false;
    }
    char line[4096];
    bool found = false;
    while (!found && std::fgets(line, sizeof line, maps) != nullptr) {
        found = std::strstr(line, library) != nullptr;
    }
    std::fclose(maps);
    return found;
}

int suite()
{
    test_modex_addresses();
    test_cma_path();
    test_bad_input();
    test_self();
    barrier();
    test_sizes();
    barrier();
    test_strided();
    barrier();
    for (std::size_t size : {std::size_t{8}, std::size_t{20000}, std::size_t{200000}}) {
        test_order(size, false);
        barrier();
        test_order(size, true);
        barrier();
    }
    // Longer than the receive: an error; shorter: delivered.  Eager, in
    // pieces, by rendezvous (CMA, split between both processes at 4 MiB),
    // contiguous and strided.
    test_sizes(16, {8});
    test_sizes(8, {16});
    test_sizes(100000, {50000});
    test_sizes(50000, {100000});
    test_sizes(13, {50});
    test_sizes(0, {32});
    test_sizes(4 << 20, {6 << 20});
    test_sizes(15, {10, 10, 10});
    test_sizes(35, {10, 10, 10});
    test_sizes(2000, {72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72,
                      72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72});
    test_sizes(250000, {100000, 100000, 100000});
    test_sizes(5 << 20, {3 << 20, 3 << 20});
    barrier();
    test_readdress();
    barrier();
    test_free_started();
    barrier();
    test_release_started();
    barrier();
    if (failures == 0) {
        std::printf("rank %d: ok (%d processes, path to rank %d: %s)\n", job->rank, job->size,
                    next_rank(), tp->path_name(tp, next_rank()));
        std::printf("rank %d: libfabric %s\n", job->rank,
                    mapped("/libfabric.so") ? "loaded" : "not loaded");
        std::printf("rank %d: UCX %s\n", job->rank, mapped("/libucp.so") ? "loaded" : "not loaded");
    }
    return failures == 0 ? 0 : 1;
}

// Rank 1 dies while rank 0 waits for it.
int kill_peer()
{
    if (job->size < 2) {
        std::printf("rank 0: kill needs 2 processes\n");
        return 1;
    }
    // mpirun sends SIGTERM to the survivors when rank 1 dies: rank 0 must
    // live to say what its wait returned.
    ::signal(SIGTERM, SIG_IGN);
    barrier();
    char c = 0;
    if (job->rank == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::raise(SIGKILL);
    }
    if (job->rank != 0) {
        return 0;
    }
    Chan recv(MCA_MSG_RECV, 1, 23, &c, 1);
    check(recv.start() == MERIDIAN_SUCCESS, "start");
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = recv.wait();
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    check(rc == MERIDIAN_ERR_UNREACH, "kill: wait gave " + code(rc));
    check(ms < 5000, "kill: took " + std::to_string(ms) + " ms");
    // A new start to the dead peer fails at once.
    Chan again(MCA_MSG_SEND, 1, 24, &c, 1);
    const int rs = again.start();
    check(rs == MERIDIAN_ERR_UNREACH, "kill: start to the dead peer gave " + code(rs));
    if (failures == 0) {
        std::printf("rank 0: unreach after %lld ms: ok\n", static_cast<long long>(ms));
    }
    std::fflush(stdout);
    // Leave before mpirun's SIGKILL, without finalizing against a dead job.
    ::_exit(failures == 0 ? 0 : 1);
}

// Rank 0 waits for rank 1, which sends nothing until rank 0 gave up.
int timeout()
{
    if (job->size < 2) {
        std::printf("rank 0: timeout needs 2 processes\n");
        return 1;
    }
    // The job runs with msg_base_timeout=1: the barriers keep a limit of
    // their own, so that a loaded node does not fail them.
    barrier(20000);
    char c = 0;
    if (job->rank == 0) {
        Chan recv(MCA_MSG_RECV, 1, 25, &c, 1);
        check(recv.start() == MERIDIAN_SUCCESS, "start");
        // A limit of the caller's: quiet, and the channel stays started.
        auto t0 = std::chrono::steady_clock::now();
        int rc = recv.wait(200);
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
        check(rc == MERIDIAN_ERR_TIMEOUT, "timeout(200 ms): wait gave " + code(rc));
        check(ms >= 200 && ms < 1000, "timeout(200 ms) took " + std::to_string(ms) + " ms");
        // The transport's limit, msg_base_timeout=1.
        t0 = std::chrono::steady_clock::now();
        rc = recv.wait();
        ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - t0)
                 .count();
        check(rc == MERIDIAN_ERR_TIMEOUT, "timeout: wait gave " + code(rc));
        check(ms >= 1000 && ms < 3000, "timeout: took " + std::to_string(ms) + " ms");
        // Release rank 1; then the late message still completes the receive.
        Chan go(MCA_MSG_SEND, 1, 26, &c, 1);
        check(go.start() == MERIDIAN_SUCCESS && go.wait(10000) == MERIDIAN_SUCCESS, "release");
        rc = recv.wait(10000);
        check(rc == MERIDIAN_SUCCESS, "the late message: " + code(rc));
        if (failures == 0) {
            std::printf("rank 0: timeout after %lld ms: ok\n", static_cast<long long>(ms));
        }
    } else if (job->rank == 1) {
        Chan go(MCA_MSG_RECV, 0, 26, &c, 1);
        check(go.start() == MERIDIAN_SUCCESS, "start");
        check(go.wait(20000) == MERIDIAN_SUCCESS, "rank 1: release");
        Chan late(MCA_MSG_SEND, 0, 25, &c, 1);
        check(late.start() == MERIDIAN_SUCCESS && late.wait(10000) == MERIDIAN_SUCCESS, "late");
    }
    barrier(20000);
    return failures == 0 ? 0 : 1;
}

// Another job's live segment, under the name this process's ring segment
// had before names were made unique: "/meridian-" + the namespace with
// every character other than [A-Za-z0-9._] as '_' + "-" + the rank.
class Planted
{
  public:
    static constexpr std::size_t bytes = 4096;

    Planted()
    {
        auto store = meridian::datastore::store();
        if (!store) {
            std::printf("FAIL: no datastore: %s\n", store.error().message.c_str());
            return;
        }
        std::string clean;
        for (const char c : (*store)->self().nspace) {
            const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c == '.' || c == '_';
            clean += keep ? c : '_';
        }
        rank_ = static_cast<int>((*store)->self().rank);
        name_ = "/meridian-" + clean + "-" + std::to_string(rank_);
        const int fd = ::shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0) {
            std::printf("rank %d: FAIL: cannot make %s: %s\n", rank_, name_.c_str(),
                        std::strerror(errno));
            return;
        }
        made_ = ::ftruncate(fd, bytes) == 0;
        if (made_) {
            void *base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            made_ = base != MAP_FAILED;
            if (made_) {
                std::memset(base, 0x5a, bytes);
                ::munmap(base, bytes);
            }
        }
        ::close(fd);
    }
    ~Planted()
    {
        if (made_) {
            ::shm_unlink(name_.c_str());
        }
    }
    Planted(const Planted &) = delete;
    Planted &operator=(const Planted &) = delete;

    // Still there, with its size and bytes.
    std::string check() const
    {
        if (!made_) {
            return "it could not be made";
        }
        const int fd = ::shm_open(name_.c_str(), O_RDONLY, 0);
        if (fd < 0) {
            return std::string("it is gone: ") + std::strerror(errno);
        }
        std::string what;
        struct stat st {
        };
        if (::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != bytes) {
            what = "its size is " + std::to_string(st.st_size);
        } else {
            void *base = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
            if (base == MAP_FAILED) {
                what = std::string("it cannot be mapped: ") + std::strerror(errno);
            } else {
                const auto *b = static_cast<const unsigned char *>(base);
                if (std::count(b, b + bytes, 0x5a) != static_cast<std::ptrdiff_t>(bytes)) {
                    what = "its bytes changed";
                }
                ::munmap(base, bytes);
            }
        }
        ::close(fd);
        return what;
    }
    const std::string &name() const { return name_; }
    int rank() const { return rank_; }

  private:
    std::string name_;
    int rank_ = -1;
    bool made_ = false;
};

int pingpong(const std::vector<std::size_t> &chosen)
{
    if (job->size < 2) {
        std::printf("pingpong needs 2 processes\n");
        return 1;
    }
    if (job->rank > 1) {
        return 0;
    }
    const int other = 1 - job->rank;
    std::vector<std::size_t> sizes = {0,     8,     64,    256,    1024,    4096,   8192,
                                      16384, 32768, 65536, 262144, 1 << 20, 4 << 20};
    if (!chosen.empty()) {
        sizes = chosen;
    }
    std::size_t largest = 0;
    for (const std::size_t size : sizes) {
        largest = std::max(largest, size);
    }
    std::vector<unsigned char> out(largest, 1), in(largest, 0);
    if (job->rank == 0) {
        std::printf("path %s\n%10s %12s %12s\n", tp->path_name(tp, other), "bytes", "half-RTT us",
                    "MB/s");
    }
    for (const std::size_t size : sizes) {
        Chan send(MCA_MSG_SEND, other, 31, out.data(), size);
        Chan recv(MCA_MSG_RECV, other, 31, in.data(), size);
        const int iters = size <= 16384 ? 20000 : size <= 262144 ? 2000 : 300;
        double best = 1e30;
        for (int rep = 0; rep < 3; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < iters; ++i) {
                if (job->rank == 0) {
                    recv.start();
                    send.start();
                    send.wait();
                    recv.wait();
                } else {
                    recv.start();
                    recv.wait();
                    send.start();
                    send.wait();
                }
            }
            const double us =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count() /
                iters / 2;
            best = std::min(best, us);
        }
        if (job->rank == 0) {
            std::printf("%10zu %12.3f %12.1f\n", size, best,
                        best > 0 ? static_cast<double>(size) / best : 0.0);
            std::fflush(stdout);
        }
    }
    return 0;
}

// Messages of several sizes both ways between ranks 0 and 1, every byte
// checked (salt: a round of its own).
void exchange_checked(int salt)
{
    const int other = 1 - job->rank;
    for (const std::size_t size : {std::size_t{8}, std::size_t{65536}, std::size_t{4} << 20}) {
        for (int round = 0; round < 5; ++round) {
            std::vector<unsigned char> out(size), in(size, 0);
            for (std::size_t i = 0; i < size; ++i) {
                out[i] = pattern(job->rank, size, i, salt + round);
            }
            Chan send(MCA_MSG_SEND, other, 0x5a00 + static_cast<std::uint64_t>(round), out.data(),
                      size);
            Chan recv(MCA_MSG_RECV, other, 0x5a00 + static_cast<std::uint64_t>(round), in.data(),
                      size);
            check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
            const int rc = wait_all({send.get(), recv.get()});
            check(rc == MERIDIAN_SUCCESS, "exchange of " + std::to_string(size) + ": " + code(rc));
            const std::size_t bad = first_bad(in, other, size, salt + round);
            check(bad == SIZE_MAX, "exchange of " + std::to_string(size) + " bytes: byte " +
                                       std::to_string(bad) + " is wrong");
        }
    }
}

// Serve the listener (refusing strangers) until the file appears, at most
// two minutes.
void serve_until(const std::filesystem::path &file)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!std::filesystem::exists(file) && std::chrono::steady_clock::now() < until) {
        tp->progress(tp);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    check(std::filesystem::exists(file), "attacked: " + file.string() + " never came");
}

void write_file(const std::filesystem::path &file, const void *data, std::size_t size)
{
    const auto part = file.string() + "." + std::to_string(::getpid()) + ".part";
    std::ofstream(part, std::ios::binary)
        .write(static_cast<const char *>(data), static_cast<std::streamsize>(size));
    std::filesystem::rename(part, file); // whole or not there
}

int attacked(const std::filesystem::path &dir, bool hog)
{
    if (job->size != 2 || std::strcmp(tp->path_name(tp, 1 - job->rank), "tcp") != 0) {
        std::printf("rank %d: attacked needs 2 processes on the tcp path (path %s)\n", job->rank,
                    tp->path_name(tp, 1 - job->rank));
        return 1;
    }
    const std::string me = std::to_string(job->rank);
    std::vector<unsigned char> bytes(128);
    std::size_t len = bytes.size();
    check(meridian_mca_msg_base_modex_get(job->rank, "tcp.addr", bytes.data(), &len) ==
                  MERIDIAN_SUCCESS &&
              len == sizeof(sockaddr_in),
          "attacked: this process's tcp address (IPv4)");
    sockaddr_in address{};
    std::memcpy(&address, bytes.data(), sizeof address);
    char host[INET_ADDRSTRLEN] = "";
    ::inet_ntop(AF_INET, &address.sin_addr, host, sizeof host);
    const std::string text = std::string(host) + ":" + std::to_string(ntohs(address.sin_port));
    write_file(dir / ("rank" + me + ".addr"), text.data(), text.size());
    len = bytes.size();
    check(meridian_mca_msg_base_modex_get(job->rank, "tcp.key", bytes.data(), &len) ==
              MERIDIAN_SUCCESS,
          "attacked: this process's key");
    write_file(dir / ("rank" + me + ".key"), bytes.data(), len);
    write_file(dir / "nspace", job->nspace, std::strlen(job->nspace));
    // Every descriptor this process may open, taken until the first go.
    std::vector<int> hogged;
    if (hog && job->rank == 0) {
        rlimit limit{};
        ::getrlimit(RLIMIT_NOFILE, &limit);
        limit.rlim_cur = std::min<rlim_t>(limit.rlim_cur, 1024);
        ::setrlimit(RLIMIT_NOFILE, &limit);
        for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
            hogged.push_back(fd);
        }
    }
    // (with hog, a descriptor lent back for the file)
    if (!hogged.empty()) {
        ::close(hogged.back());
        hogged.pop_back();
    }
    write_file(dir / ("ready." + me), "", 0);
    if (hog && job->rank == 0) {
        hogged.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    }
    serve_until(dir / "go1");
    for (const int fd : hogged) {
        ::close(fd);
    }
    exchange_checked(1);
    barrier();
    write_file(dir / ("connected." + me), "", 0);
    serve_until(dir / "go2");
    exchange_checked(2);
    barrier();
    if (failures == 0) {
        std::printf("rank %d: values right after the attacks: ok\n", job->rank);
    }
    return failures == 0 ? 0 : 1;
}

// Completed sends outlive their sender.
int dead_sender()
{
    if (job->size != 2) {
        std::printf("rank %d: dead_sender needs 2 processes\n", job->rank);
        return 1;
    }
    const std::size_t sizes[4] = {8, 1000, 4000, 100000};
    // The fourth receive is there before rank 1 sends, and waited for only
    // after rank 1 ended: the wait that finds its sender gone must still
    // deliver what the sender's transport holds.
    std::vector<unsigned char> last(sizes[3], 0);
    std::optional<Chan> fourth_recv;
    if (job->rank == 0) {
        fourth_recv.emplace(MCA_MSG_RECV, 1, 0xde3, last.data(), last.size());
        check(fourth_recv->start() == MERIDIAN_SUCCESS, "dead_sender: start");
    }
    barrier();
    if (job->rank == 1) {
        std::vector<std::vector<unsigned char>> out;
        std::vector<Chan> sends;
        std::vector<mca_msg_channel_t *> raw;
        for (int m = 0; m < 4; ++m) {
            out.emplace_back(sizes[m]);
            for (std::size_t i = 0; i < sizes[m]; ++i) {
                out[m][i] = pattern(1, sizes[m], i, m);
            }
            sends.emplace_back(MCA_MSG_SEND, 0, 0xde0 + static_cast<std::uint64_t>(m),
                               out[m].data(), sizes[m]);
            check(sends.back().start() == MERIDIAN_SUCCESS, "dead_sender: start");
            raw.push_back(sends.back().get());
        }
        check(wait_all(raw) == MERIDIAN_SUCCESS, "dead_sender: the sends");
        return failures == 0 ? 0 : 1; // main stops the transport and finalizes
    }
    // Rank 1 is gone by now (unless the machine is very busy: then this
    // waits for a sender that lives, which proves less but passes too).
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    {
        const int rc = fourth_recv->wait();
        check(rc == MERIDIAN_SUCCESS,
              "dead_sender: message 3, started before rank 1 ended, gave " + code(rc));
        const std::size_t bad = first_bad(last, 1, sizes[3], 3);
        check(rc != MERIDIAN_SUCCESS || bad == SIZE_MAX,
              "dead_sender: message 3: byte " + std::to_string(bad) + " is wrong");
        fourth_recv.reset();
    }
    // A receive nothing answers: it ends when rank 1 is known gone (at its
    // start when the wait above learnt it already).
    char never = 0;
    {
        Chan recv(MCA_MSG_RECV, 1, 0xdef, &never, 1);
        const int rs = recv.start();
        const int rc = rs == MERIDIAN_SUCCESS ? recv.wait() : rs;
        check(rc == MERIDIAN_ERR_UNREACH,
              "dead_sender: the receive of what rank 1 never sent gave " + code(rc));
    }
    for (int m = 0; m < 3; ++m) {
        std::vector<unsigned char> in(sizes[m], 0);
        Chan recv(MCA_MSG_RECV, 1, 0xde0 + static_cast<std::uint64_t>(m), in.data(), sizes[m]);
        const int rs = recv.start();
        const int rc = rs == MERIDIAN_SUCCESS ? recv.wait() : rs;
        check(rc == MERIDIAN_SUCCESS, "dead_sender: message " + std::to_string(m) + " gave " +
                                          code(rc) + (rs != MERIDIAN_SUCCESS ? " at start" : ""));
        const std::size_t bad = first_bad(in, 1, sizes[m], m);
        check(rc != MERIDIAN_SUCCESS || bad == SIZE_MAX, "dead_sender: message " +
                                                             std::to_string(m) + ": byte " +
                                                             std::to_string(bad) + " is wrong");
    }
    // Nothing more comes: one more receive fails at once.
    Chan more(MCA_MSG_RECV, 1, 0xde0, &never, 1);
    const int rs = more.start();
    check(rs == MERIDIAN_ERR_UNREACH || more.wait() == MERIDIAN_ERR_UNREACH,
          "dead_sender: one more receive gave " + code(rs));
    if (failures == 0) {
        std::printf("rank 0: 4 messages of a dead sender: ok\n");
    }
    return failures == 0 ? 0 : 1;
}

// Sends that complete right before their sender ends are delivered: the
// sizes span every protocol (inline, eager, pieces, rendezvous).
int last_words()
{
    if (job->size != 2) {
        std::printf("rank %d: last_words needs 2 processes\n", job->rank);
        return 1;
    }
    // Every protocol's sizes, then a burst of eager-sized ones that fills
    // the connection while rank 0 does not read it.
    std::vector<std::size_t> sizes = {0, 8, 200, 4000, 16384, 65536, 300000, 1 << 20, 4 << 20};
    sizes.insert(sizes.end(), 32, 60000);
    const int count = static_cast<int>(sizes.size());
    std::vector<std::vector<unsigned char>> data;
    std::vector<Chan> chans;
    std::vector<mca_msg_channel_t *> raw;
    const bool sender = job->rank == 1;
    for (int m = 0; m < count; ++m) {
        data.emplace_back(sizes[m], 0);
        if (sender) {
            for (std::size_t i = 0; i < sizes[m]; ++i) {
                data[m][i] = pattern(1, sizes[m], i, m);
            }
        }
        chans.emplace_back(sender ? MCA_MSG_SEND : MCA_MSG_RECV, sender ? 0 : 1,
                           0x1a50 + static_cast<std::uint64_t>(m), data[m].data(), sizes[m]);
        raw.push_back(chans.back().get());
    }
    if (!sender) {
        for (Chan &chan : chans) {
            check(chan.start() == MERIDIAN_SUCCESS, "last_words: start");
        }
    }
    barrier(); // the receives are there
    if (sender) {
        for (Chan &chan : chans) {
            check(chan.start() == MERIDIAN_SUCCESS, "last_words: start");
        }
        check(wait_all(raw) == MERIDIAN_SUCCESS, "last_words: the sends");
        return failures == 0 ? 0 : 1; // main stops the transport and finalizes
    }
    // Rank 0 is busy elsewhere while rank 1 sends and ends: what rank 1's
    // sends completed with must still be there when rank 0 looks.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const int rc = wait_all(raw);
    check(rc == MERIDIAN_SUCCESS, "last_words: the receives gave " + code(rc));
    for (int m = 0; m < count && rc == MERIDIAN_SUCCESS; ++m) {
        const std::size_t bad = first_bad(data[m], 1, sizes[m], m);
        check(bad == SIZE_MAX, "last_words: message " + std::to_string(m) + " (" +
                                   std::to_string(sizes[m]) + " bytes): byte " +
                                   std::to_string(bad) + " is wrong");
    }
    if (failures == 0) {
        std::printf("rank 0: %d last messages of a sender that ended: ok\n", count);
    }
    return failures == 0 ? 0 : 1;
}

// Messages that come before their receives, past msg_base_unexpected_limit.
int early()
{
    if (job->size != 2) {
        std::printf("rank %d: early needs 2 processes\n", job->rank);
        return 1;
    }
    constexpr std::size_t size = std::size_t{16} << 20;
    std::vector<std::vector<unsigned char>> blocks(3, std::vector<unsigned char>(size));
    std::vector<Chan> sends;
    if (job->rank == 1) {
        for (int m = 0; m < 3; ++m) {
            for (std::size_t i = 0; i < size; ++i) {
                blocks[m][i] = pattern(1, size, i, m);
            }
            sends.emplace_back(MCA_MSG_SEND, 0, 0xea0 + static_cast<std::uint64_t>(m),
                               blocks[m].data(), size);
        }
    }
    // Both start together: rank 0's receives start 1 s after this.
    barrier();
    if (job->rank == 1) {
        std::vector<mca_msg_channel_t *> raw;
        const auto t0 = std::chrono::steady_clock::now();
        for (auto &c : sends) {
            check(c.start() == MERIDIAN_SUCCESS, "early: start");
            raw.push_back(c.get());
        }
        check(wait_all(raw) == MERIDIAN_SUCCESS, "early: the sends");
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
        check(ms >= 900, "early: the sends completed after " + std::to_string(ms) +
                             " ms, before rank 0 started its receives (1 s)");
        if (failures == 0) {
            std::printf("rank 1: sends waited %lld ms: ok\n", static_cast<long long>(ms));
        }
    } else {
        // The receives declared (their peer's ring is watched as closely as
        // any), then a second of progress without them: the messages come
        // early.
        std::vector<Chan> recvs;
        for (int m = 0; m < 3; ++m) {
            recvs.emplace_back(MCA_MSG_RECV, 1, 0xea0 + static_cast<std::uint64_t>(m),
                               blocks[m].data(), size);
        }
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        while (std::chrono::steady_clock::now() < until) {
            tp->progress(tp);
        }
        for (int m = 0; m < 3; ++m) {
            Chan &recv = recvs[static_cast<std::size_t>(m)];
            check(recv.start() == MERIDIAN_SUCCESS, "early: start");
            check(recv.wait() == MERIDIAN_SUCCESS, "early: receive " + std::to_string(m));
            const std::size_t bad = first_bad(blocks[m], 1, size, m);
            check(bad == SIZE_MAX, "early: message " + std::to_string(m) + ": byte " +
                                       std::to_string(bad) + " is wrong");
        }
        if (failures == 0) {
            std::printf("rank 0: three early messages right: ok\n");
        }
    }
    barrier();
    return failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (int rc = meridian_init(&argc, &argv); rc != MERIDIAN_SUCCESS) {
        std::printf("FAIL: meridian_init: %s\n", meridian_strerror(rc));
        return 1;
    }
    const std::string mode = argc > 1 ? argv[1] : "suite";
    std::unique_ptr<Planted> planted;
    if (mode == "planted") {
        planted = std::make_unique<Planted>();
    }
    if (int rc = meridian_mca_msg_base_start(&tp, &job); rc != MERIDIAN_SUCCESS) {
        std::printf("FAIL: meridian_mca_msg_base_start: %s\n", meridian_strerror(rc));
        planted.reset();
        meridian_finalize();
        return 1;
    }
    int status = 1;
    if (mode == "planted") {
        // A message around the ring, then the transport stops: the
        // planted segment must have outlived both.
        int out = job->rank;
        int in = -1;
        {
            Chan send(MCA_MSG_SEND, next_rank(), 27, &out, sizeof out);
            Chan recv(MCA_MSG_RECV, prev_rank(), 27, &in, sizeof in);
            check(recv.start() == MERIDIAN_SUCCESS && send.start() == MERIDIAN_SUCCESS, "start");
            check(wait_all({send.get(), recv.get()}) == MERIDIAN_SUCCESS && in == prev_rank(),
                  "planted: the message around the ring");
        }
        barrier();
        meridian_mca_msg_base_stop();
        const std::string damage = planted->check();
        check(damage.empty(), "planted: the segment " + planted->name() + ": " + damage);
        if (failures == 0) {
            std::printf("rank %d: planted segment intact: ok\n", planted->rank());
        }
        planted.reset();
        meridian_finalize();
        return failures == 0 ? 0 : 1;
    }
    if (mode == "suite") {
        status = suite();
    } else if (mode == "kill") {
        status = kill_peer();
    } else if (mode == "timeout") {
        status = timeout();
    } else if (mode == "attacked" && argc >= 3) {
        status = attacked(argv[2], argc > 3 && std::strcmp(argv[3], "hog") == 0);
    } else if (mode == "early") {
        status = early();
    } else if (mode == "dead_sender") {
        status = dead_sender();
    } else if (mode == "last_words") {
        status = last_words();
    } else if (mode == "pingpong") {
        // msg_driver pingpong [SIZE...]
        std::vector<std::size_t> sizes;
        for (int i = 2; i < argc; ++i) {
            sizes.push_back(std::strtoull(argv[i], nullptr, 10));
        }
        status = pingpong(sizes);
    } else {
        std::printf("usage: msg_driver [suite|kill|timeout|planted|attacked DIR [hog]|early|"
                    "dead_sender|last_words|pingpong]\n");
    }
    meridian_mca_msg_base_stop();
    meridian_finalize();
    return status;
}
