// SPDX-License-Identifier: BSD-3-Clause
// The QMP layer's messaging logic that needs no running job
// (mca/qmp/qmp_msg.hpp): message memory as runs of bytes, QMP's tag
// rule in the transport tag, the collectives' size classes and schedules
// (simulated over every member of many machine shapes), and the calls that
// work before QMP_init_msg_passing (memory, status strings, the error
// function, tagged output).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "mca/qmp/qmp.h"
#include "mca/qmp/qmp_msg.hpp"
#include "test/support/meridian_test.hpp"

namespace qmp = meridian::qmp;

namespace
{

// "offset+length offset+length ... = nbytes", or "STATUS: message".
std::string runs(const meridian::Result<qmp::BlockList> &list)
{
    if (!list) {
        return std::to_string(list.error().status) + ": " + list.error().message;
    }
    std::string out;
    for (const qmp::Block &b : list->blocks()) {
        out += std::to_string(b.offset) + "+" + std::to_string(b.length) + " ";
    }
    return out + "= " + std::to_string(list->nbytes());
}

const std::string invalid = std::to_string(QMP_INVALID_ARG) + ": ";
const std::string too_big = std::to_string(QMP_MEMSIZE_TOOBIG) + ": ";

START_TEST(contiguous_and_strided_runs)
{
    ck_assert_text_eq(runs(qmp::contiguous_layout(24)), "0+24 = 24");
    ck_assert_text_eq(runs(qmp::contiguous_layout(0)), "= 0");
    // Columns of an 8-int-wide array: one int every 32 bytes.
    ck_assert_text_eq(runs(qmp::strided_layout(4, 3, 32)), "0+4 32+4 64+4 = 12");
    // A stride equal to the block size is contiguous (QMP declares it so).
    ck_assert_text_eq(runs(qmp::strided_layout(8, 4, 8)), "0+32 = 32");
    // Negative strides walk backwards from the base, in message order.
    ck_assert_text_eq(runs(qmp::strided_layout(4, 3, -32)), "0+4 -32+4 -64+4 = 12");
    // A stride below the block size overlaps (MPI_Type_vector allows it):
    // every block still counts.
    ck_assert_text_eq(runs(qmp::strided_layout(8, 3, 4)), "0+8 4+8 8+8 = 24");
    // A stride of 0 sends the same block again.
    ck_assert_text_eq(runs(qmp::strided_layout(4, 2, 0)), "0+4 0+4 = 8");
    ck_assert_text_eq(runs(qmp::strided_layout(4, 0, 32)), "= 0");
    ck_assert_text_eq(runs(qmp::strided_layout(0, 5, 32)), "= 0");
    ck_assert_text_eq(runs(qmp::strided_layout(4, -1, 32)),
                      invalid + "nblocks is -1, expected 0 or more");
    ck_assert_text_eq(runs(qmp::strided_layout(SIZE_MAX / 2, 3, 1)),
                      too_big + "the message is larger than memory");
    ck_assert_text_eq(runs(qmp::strided_layout(8, 3, PTRDIFF_MAX)),
                      too_big + "the message is larger than memory");
}
END_TEST

START_TEST(strided_array_runs)
{
    char memory[256];
    // A column (4 ints every 32 bytes) and then a row of 8 ints at +128:
    // the row starts where nothing ends, so no join.
    void *base[2] = {memory + 12, memory + 140};
    const std::size_t blksize[2] = {4, 32};
    const int nblocks[2] = {4, 1};
    const std::ptrdiff_t stride[2] = {32, 0};
    ck_assert_text_eq(runs(qmp::strided_array_layout(base, blksize, nblocks, stride)),
                      "0+4 32+4 64+4 96+4 128+32 = 48");
    // A row at +100 continues the column's last block: one run.
    void *joined[2] = {memory + 12, memory + 112};
    ck_assert_text_eq(runs(qmp::strided_array_layout(joined, blksize, nblocks, stride)),
                      "0+4 32+4 64+4 96+36 = 48");
    // An array before the first one: negative displacement.
    void *before[2] = {memory + 100, memory};
    const std::size_t two[2] = {8, 8};
    const int ones[2] = {1, 1};
    const std::ptrdiff_t zeros[2] = {0, 0};
    ck_assert_text_eq(runs(qmp::strided_array_layout(before, two, ones, zeros)), "0+8 -100+8 = 16");
    ck_assert_text_eq(runs(qmp::strided_array_layout({}, {}, {}, {})), "= 0");
    const int negative[2] = {1, -2};
    ck_assert_text_eq(runs(qmp::strided_array_layout(before, two, negative, zeros)),
                      invalid + "nblocks[1] is -2, expected 0 or more");
}
END_TEST

START_TEST(indexed_runs)
{
    // In elements of 4 bytes, as MPI_Type_indexed: blocks of 1, 2, 3 at
    // 5, 11, 30; 0-length blocks vanish; adjacent blocks join.
    const int blocklen[] = {1, 2, 3, 0, 2};
    const int index[] = {5, 11, 30, 7, 33};
    ck_assert_text_eq(runs(qmp::indexed_layout(blocklen, index, 4)), "20+4 44+8 120+20 = 32");
    const int back_len[] = {2, 1};
    const int back_index[] = {-2, -6};
    ck_assert_text_eq(runs(qmp::indexed_layout(back_len, back_index, 8)), "-16+16 -48+8 = 24");
    ck_assert_text_eq(runs(qmp::indexed_layout({}, {}, 8)), "= 0");
    ck_assert_text_eq(runs(qmp::indexed_layout(back_len, back_index, -8)),
                      invalid + "elemsize is -8, expected 0 or more");
    const int bad_len[] = {1, -3};
    ck_assert_text_eq(runs(qmp::indexed_layout(bad_len, back_index, 8)),
                      invalid + "blocklen[1] is -3, expected 0 or more");
}
END_TEST

START_TEST(iovecs_at_a_base)
{
    auto list = qmp::strided_layout(4, 3, -32);
    ck_assert(list.ok());
    char memory[128];
    std::vector<iovec> iov;
    qmp::to_iovec(list->blocks(), memory + 64, iov);
    ck_assert_uint_eq(iov.size(), 3);
    ck_assert_ptr_eq(iov[0].iov_base, memory + 64);
    ck_assert_ptr_eq(iov[1].iov_base, memory + 32);
    ck_assert_ptr_eq(iov[2].iov_base, memory);
    ck_assert_uint_eq(iov[2].iov_len, 4);
    // Readdressing reuses the list.
    qmp::to_iovec(list->blocks(), memory + 96, iov);
    ck_assert_uint_eq(iov.size(), 3);
    ck_assert_ptr_eq(iov[2].iov_base, memory + 32);
}
END_TEST

START_TEST(qmp_tag_rule)
{
    using qmp::channel_tag;
    // send_to / receive_from: TAG_CHANNEL (11), context in the upper half.
    ck_assert_uint_eq(channel_tag(0, MCA_MSG_SEND, -1, 0), 11);
    ck_assert_uint_eq(channel_tag(5, MCA_MSG_RECV, -1, 0), (UINT64_C(5) << 32) | 11);
    // Relative: a send going + is 10, going - is 12; receives the reverse.
    ck_assert_uint_eq(channel_tag(0, MCA_MSG_SEND, 0, +1), 10);
    ck_assert_uint_eq(channel_tag(0, MCA_MSG_SEND, 3, -1), 12);
    ck_assert_uint_eq(channel_tag(0, MCA_MSG_RECV, 0, +1), 12);
    ck_assert_uint_eq(channel_tag(0, MCA_MSG_RECV, 2, -1), 10);
    // What goes + arrives at a neighbour's receive from -, so with two
    // nodes along an axis the + and - messages between them stay apart.
    ck_assert_uint_eq(channel_tag(7, MCA_MSG_SEND, 1, +1), channel_tag(7, MCA_MSG_RECV, 1, -1));
    ck_assert_uint_eq(channel_tag(7, MCA_MSG_SEND, 1, -1), channel_tag(7, MCA_MSG_RECV, 1, +1));
    ck_assert_uint_ne(channel_tag(7, MCA_MSG_SEND, 1, +1), channel_tag(7, MCA_MSG_SEND, 1, -1));
    // As in QMP, any positive direction is +, anything else -.
    ck_assert_uint_eq(channel_tag(0, MCA_MSG_SEND, 0, 3), 10);
    // Collective traffic never meets channel traffic, nor another class's.
    const std::uint64_t small0 = qmp::collective_tag(7, qmp::CollectiveTraffic::small, 0);
    ck_assert_uint_eq(small0, (UINT64_C(7) << 32) | 0x80000000u);
    ck_assert_uint_ne(small0, qmp::collective_tag(7, qmp::CollectiveTraffic::small, 1));
    ck_assert_uint_ne(small0, qmp::collective_tag(7, qmp::CollectiveTraffic::large, 0));
    ck_assert_uint_ne(small0, qmp::collective_tag(8, qmp::CollectiveTraffic::small, 0));
    ck_assert_uint_eq(qmp::collective_tag(7, qmp::CollectiveTraffic::alltoall, 0) >> 32, 7);
}
END_TEST

START_TEST(size_classes)
{
    ck_assert_uint_eq(qmp::size_class(0), 0);
    ck_assert_uint_eq(qmp::size_class(1), 0);
    ck_assert_uint_eq(qmp::size_class(8), 0);
    ck_assert_uint_eq(qmp::size_class(9), 1);
    ck_assert_uint_eq(qmp::size_class(16), 1);
    ck_assert_uint_eq(qmp::size_class(17), 2);
    ck_assert_uint_eq(qmp::size_class(4096), 9);
    ck_assert_uint_eq(qmp::size_class(qmp::kSmallMax), qmp::kSizeClasses - 1);
    for (std::size_t n = 1; n <= qmp::kSmallMax; n += 7) {
        const unsigned c = qmp::size_class(n);
        ck_assert(qmp::class_bytes(c) >= n);
        ck_assert(c == 0 || qmp::class_bytes(c - 1) < n);
    }
}
END_TEST

std::string show(const std::vector<qmp::Round> &rounds)
{
    std::string out;
    for (const qmp::Round &r : rounds) {
        std::string round;
        if (r.recv >= 0) {
            const char *post = r.post == qmp::Post::mine_lower    ? "<"
                               : r.post == qmp::Post::mine_higher ? ">"
                               : r.post == qmp::Post::store       ? "="
                                                                  : "";
            round = "r" + std::to_string(r.recv) + post;
        }
        for (int s : r.sends) {
            round += (round.empty() ? "s" : " s") + std::to_string(s);
        }
        out += (out.empty() ? "" : " | ") + round;
    }
    return out;
}

START_TEST(schedules_of_small_machines)
{
    // Alone: nothing to do.
    const std::vector<int> one = {0};
    ck_assert_text_eq(show(qmp::make_schedule(one, 0).allreduce), "");
    // Two processes of a node: one exchange ("<": mine is the lower part).
    const std::vector<int> pair = {0, 0};
    ck_assert_text_eq(show(qmp::make_schedule(pair, 0).allreduce), "r1< s1");
    ck_assert_text_eq(show(qmp::make_schedule(pair, 1).allreduce), "r0> s0");
    ck_assert_text_eq(show(qmp::make_schedule(pair, 0).broadcast), "s1");
    ck_assert_text_eq(show(qmp::make_schedule(pair, 1).broadcast), "r0=");
    // Two processes on two nodes: the same exchange, between leaders.
    const std::vector<int> apart = {0, 1};
    ck_assert_text_eq(show(qmp::make_schedule(apart, 1).allreduce), "r0> s0");
    // Three on a node: rank 1 folds into rank 0 and gets the result back;
    // rank 0 (holding 0 and 1) and rank 2 exchange.
    const std::vector<int> three = {4, 4, 4};
    ck_assert_text_eq(show(qmp::make_schedule(three, 0).allreduce), "r1< | r2< s2 | s1");
    ck_assert_text_eq(show(qmp::make_schedule(three, 1).allreduce), "r0= s0");
    ck_assert_text_eq(show(qmp::make_schedule(three, 2).allreduce), "r0> s0");
    // Two nodes of two: within the node to the leader, leaders exchange,
    // back within the node (a member's send joins its wait for the result).
    const std::vector<int> two_by_two = {0, 0, 1, 1};
    ck_assert_text_eq(show(qmp::make_schedule(two_by_two, 0).allreduce), "r1< | r2< s2 | s1");
    ck_assert_text_eq(show(qmp::make_schedule(two_by_two, 1).allreduce), "r0= s0");
    ck_assert_text_eq(show(qmp::make_schedule(two_by_two, 2).allreduce), "r3< | r0> s0 | s3");
    ck_assert_text_eq(show(qmp::make_schedule(two_by_two, 3).broadcast), "r2=");
    ck_assert_text_eq(show(qmp::make_schedule(two_by_two, 0).broadcast), "s2 s1");
    // Nodes interleaved (round-robin placement): leaders are 0 and 1.
    const std::vector<int> interleaved = {0, 1, 0, 1};
    ck_assert_text_eq(show(qmp::make_schedule(interleaved, 1).allreduce), "r3< | r0> s0 | s3");
}
END_TEST

// Runs every member's schedule against the others, in order per (sender,
// receiver) as the transport matches, with a non-commutative combination
// (the list of contributors, lower part first), and checks that it ends,
// that every member holds the same list, and that it has everyone once.
struct Simulation {
    std::string failure;
    std::vector<std::string> results;
};

Simulation simulate(const std::vector<int> &node_of, bool broadcast)
{
    const int p = static_cast<int>(node_of.size());
    std::vector<std::vector<qmp::Round>> rounds(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        const qmp::Schedule s = qmp::make_schedule(node_of, r);
        rounds[static_cast<std::size_t>(r)] = broadcast ? s.broadcast : s.allreduce;
    }
    std::vector<std::string> acc(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        acc[static_cast<std::size_t>(r)] = broadcast ? (r == 0 ? "root" : "?") : std::to_string(r);
    }
    std::map<std::pair<int, int>, std::deque<std::string>> wire; // (from, to)
    std::vector<std::size_t> at(static_cast<std::size_t>(p), 0);
    std::vector<bool> started(static_cast<std::size_t>(p), false);
    Simulation sim;
    for (bool moved = true; moved;) {
        moved = false;
        for (int r = 0; r < p; ++r) {
            auto &mine = rounds[static_cast<std::size_t>(r)];
            std::size_t &k = at[static_cast<std::size_t>(r)];
            if (k == mine.size()) {
                continue;
            }
            const qmp::Round &round = mine[k];
            if (!started[static_cast<std::size_t>(r)]) {
                for (int to : round.sends) {
                    wire[{r, to}].push_back(acc[static_cast<std::size_t>(r)]);
                }
                started[static_cast<std::size_t>(r)] = true;
                moved = true;
            }
            if (round.recv >= 0) {
                auto &queue = wire[{round.recv, r}];
                if (queue.empty()) {
                    continue;
                }
                const std::string theirs = queue.front();
                queue.pop_front();
                std::string &a = acc[static_cast<std::size_t>(r)];
                if (round.post == qmp::Post::mine_lower) {
                    a = a + "," + theirs;
                } else if (round.post == qmp::Post::mine_higher) {
                    a = theirs + "," + a;
                } else if (round.post == qmp::Post::store) {
                    a = theirs;
                }
            }
            ++k;
            started[static_cast<std::size_t>(r)] = false;
            moved = true;
        }
    }
    for (int r = 0; r < p; ++r) {
        if (at[static_cast<std::size_t>(r)] != rounds[static_cast<std::size_t>(r)].size()) {
            sim.failure = "rank " + std::to_string(r) + " stuck in round " +
                          std::to_string(at[static_cast<std::size_t>(r)]);
            return sim;
        }
    }
    for (const auto &[ends, queue] : wire) {
        if (!queue.empty()) {
            sim.failure = "a message from " + std::to_string(ends.first) + " to " +
                          std::to_string(ends.second) + " was never received";
            return sim;
        }
    }
    sim.results = acc;
    return sim;
}

std::string shape_text(const std::vector<int> &node_of)
{
    std::string out;
    for (int n : node_of) {
        out += (out.empty() ? "" : ",") + std::to_string(n);
    }
    return "nodes " + out;
}

START_TEST(schedules_give_everyone_the_same_result)
{
    // Every size up to 13, with the processes on one node, each on its
    // own, in blocks of 2 and 3, round-robin over 2 and 3 nodes, and
    // unevenly (node sizes 1, 3, 2, ...).
    for (int p = 1; p <= 13; ++p) {
        std::vector<std::vector<int>> shapes(7, std::vector<int>(static_cast<std::size_t>(p)));
        for (int r = 0; r < p; ++r) {
            const auto i = static_cast<std::size_t>(r);
            shapes[0][i] = 0;
            shapes[1][i] = r;
            shapes[2][i] = r / 2;
            shapes[3][i] = r / 3;
            shapes[4][i] = r % 2;
            shapes[5][i] = r % 3;
            shapes[6][i] = r == 0 ? 9 : (r < 4 ? 5 : (r < 6 ? 7 : r));
        }
        for (const auto &shape : shapes) {
            const Simulation reduce = simulate(shape, false);
            ck_assert_msg(reduce.failure.empty(), "allreduce, %s: %s", shape_text(shape).c_str(),
                          reduce.failure.c_str());
            for (int r = 1; r < p; ++r) {
                ck_assert_msg(reduce.results[static_cast<std::size_t>(r)] == reduce.results[0],
                              "allreduce, %s: rank %d has %s, rank 0 %s", shape_text(shape).c_str(),
                              r, reduce.results[static_cast<std::size_t>(r)].c_str(),
                              reduce.results[0].c_str());
            }
            std::vector<int> seen(static_cast<std::size_t>(p), 0);
            const std::string &list = reduce.results[0];
            for (std::size_t pos = 0; pos <= list.size();) {
                const std::size_t comma = std::min(list.find(',', pos), list.size());
                ++seen[static_cast<std::size_t>(std::stoi(list.substr(pos, comma - pos)))];
                pos = comma + 1;
            }
            for (int r = 0; r < p; ++r) {
                ck_assert_msg(seen[static_cast<std::size_t>(r)] == 1,
                              "allreduce, %s: rank %d counted %d times in %s",
                              shape_text(shape).c_str(), r, seen[static_cast<std::size_t>(r)],
                              list.c_str());
            }
            const Simulation bcast = simulate(shape, true);
            ck_assert_msg(bcast.failure.empty(), "broadcast, %s: %s", shape_text(shape).c_str(),
                          bcast.failure.c_str());
            for (int r = 0; r < p; ++r) {
                ck_assert_msg(bcast.results[static_cast<std::size_t>(r)] == "root",
                              "broadcast, %s: rank %d has %s", shape_text(shape).c_str(), r,
                              bcast.results[static_cast<std::size_t>(r)].c_str());
            }
        }
    }
}
END_TEST

START_TEST(schedules_combine_in_rank_order_on_one_node)
{
    // On one node the values combine in rank order, whatever the count.
    const std::vector<int> eight(8, 0);
    ck_assert_text_eq(simulate(eight, false).results[5], "0,1,2,3,4,5,6,7");
    const std::vector<int> six(6, 0);
    ck_assert_text_eq(simulate(six, false).results[3], "0,1,2,3,4,5");
    const std::vector<int> eleven(11, 3);
    ck_assert_text_eq(simulate(eleven, false).results[10], "0,1,2,3,4,5,6,7,8,9,10");
    // Nodes holding consecutive ranks: each node's block, then the nodes in
    // order.
    const std::vector<int> blocks = {0, 0, 1, 1, 2, 2, 3, 3};
    ck_assert_text_eq(simulate(blocks, false).results[7], "0,1,2,3,4,5,6,7");
    const std::vector<int> three_nodes = {0, 0, 1, 1, 1, 2};
    ck_assert_text_eq(simulate(three_nodes, false).results[4], "0,1,2,3,4,5");
}
END_TEST

// ---------------------------------------------------------------- before init

int handler_calls = 0;
std::string handler_message;
int handler(QMP_status_t status, const char *message)
{
    ++handler_calls;
    handler_message = std::to_string(static_cast<int>(status)) + ": " + message;
    return 0;
}

START_TEST(memory_and_the_error_function)
{
    QMP_mem_t *m = QMP_allocate_aligned_memory(100, 4096, QMP_MEM_DEFAULT);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(reinterpret_cast<std::uintptr_t>(QMP_get_memory_pointer(m)) % 4096, 0);
    QMP_mem_t *odd = QMP_allocate_aligned_memory(10, 48, 0);
    ck_assert_ptr_nonnull(odd);
    ck_assert_uint_eq(reinterpret_cast<std::uintptr_t>(QMP_get_memory_pointer(odd)) % 48, 0);
    QMP_free_aligned_memory(QMP_get_memory_pointer(odd));
    QMP_free_memory(m);

    ERRFUNCPTR_t previous = QMP_set_error_function(handler);
    ck_assert_ptr_nonnull(reinterpret_cast<void *>(previous));
    int local = 0;
    QMP_free_aligned_memory(&local); // never allocated: the error function hears of it
    ck_assert_int_eq(handler_calls, 1);
    ck_assert_msg(
        handler_message.find(std::to_string(QMP_BAD_MEMORY) + ": QMP_free_aligned_memory: 0x") == 0,
        "%s", handler_message.c_str());
    ck_assert_msg(handler_message.find(" is not a pointer QMP_get_memory_pointer gave (or it was "
                                       "freed already)") != std::string::npos,
                  "%s", handler_message.c_str());
    ck_assert_int_eq(QMP_get_error_number(nullptr), QMP_BAD_MEMORY);
    // Freed twice: reported, and nothing is read through the stale pointer.
    QMP_free_memory(m);
    ck_assert_int_eq(handler_calls, 2);
    ck_assert_msg(handler_message.find(" is not memory from QMP_allocate_memory (or it was freed "
                                       "already)") != std::string::npos,
                  "%s", handler_message.c_str());
    ck_assert_ptr_eq(reinterpret_cast<void *>(QMP_set_error_function(nullptr)),
                     reinterpret_cast<void *>(handler));
    ck_assert_ptr_eq(reinterpret_cast<void *>(QMP_set_error_function(previous)),
                     reinterpret_cast<void *>(previous));
}
END_TEST

START_TEST(message_memory_errors_before_init)
{
    ck_assert_ptr_null(QMP_declare_strided_msgmem(nullptr, 4, -2, 8));
    ck_assert_int_eq(QMP_get_error_number(nullptr), QMP_INVALID_ARG);
    ck_assert_text_eq(QMP_get_error_string(nullptr),
                      "QMP_declare_strided_msgmem: nblocks is -2, expected 0 or more");
    ck_assert_ptr_null(QMP_declare_indexed_msgmem(nullptr, nullptr, nullptr, 4, 3));
    ck_assert_text_eq(QMP_get_error_string(nullptr),
                      "QMP_declare_indexed_msgmem: blocklen and index must not be NULL");
    char word[8] = {};
    QMP_msgmem_t mm = QMP_declare_msgmem(word, sizeof word);
    ck_assert_ptr_nonnull(mm);
    // Channels need QMP running.
    ck_assert_ptr_null(QMP_declare_send_to(mm, 0, 0));
    ck_assert_int_eq(QMP_get_error_number(nullptr), QMP_NOT_INITED);
    ck_assert_text_eq(QMP_get_error_string(nullptr), "QMP_declare_send_to: QMP is not initialized");
    ck_assert_int_eq(QMP_sum_double(reinterpret_cast<double *>(word)), QMP_NOT_INITED);
    ck_assert_text_eq(QMP_get_error_string(nullptr), "QMP_sum_double: QMP is not initialized");
    QMP_free_msgmem(mm);
}
END_TEST

START_TEST(status_strings_and_version)
{
    ck_assert_text_eq(QMP_error_string(QMP_SUCCESS), "successful");
    ck_assert_text_eq(QMP_error_string(QMP_TIMEOUT), "communication time out");
    ck_assert_text_eq(QMP_error_string(static_cast<QMP_status_t>(-14)),
                      "Meridian: peer unreachable");
    ck_assert_text_eq(QMP_error_string(static_cast<QMP_status_t>(-99)), "unknown error code -99");
    ck_assert_text_eq(QMP_error_string(QMP_MAX_STATUS),
                      "unknown error code " + std::to_string(static_cast<int>(QMP_MAX_STATUS)));
    ck_assert_int_eq(QMP_version_int(), 2005004);
    ck_assert_msg(std::string(QMP_version_str()).rfind("2.5.4 (Meridian ", 0) == 0, "%s",
                  QMP_version_str());
}
END_TEST

START_TEST(tagged_output_before_init)
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    FILE *f = std::tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(QMP_fprintf(f, "value %d", 42), 8);
    std::rewind(f);
    char line[512] = {};
    ck_assert_ptr_nonnull(std::fgets(line, sizeof line, f));
    std::fclose(f);
    ck_assert_text_eq(line, std::string("QMP m0,n1@") + host + ": value 42\n");
    ck_assert_int_eq(QMP_fprintf(nullptr, "x"), -1);
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("qmp_msg");
    TCase *pure = tcase_create("pure");
    tcase_add_test(pure, contiguous_and_strided_runs);
    tcase_add_test(pure, strided_array_runs);
    tcase_add_test(pure, indexed_runs);
    tcase_add_test(pure, iovecs_at_a_base);
    tcase_add_test(pure, qmp_tag_rule);
    tcase_add_test(pure, size_classes);
    tcase_add_test(pure, schedules_of_small_machines);
    tcase_add_test(pure, schedules_give_everyone_the_same_result);
    tcase_add_test(pure, schedules_combine_in_rank_order_on_one_node);
    suite_add_tcase(suite, pure);
    TCase *api = tcase_create("before_init");
    tcase_add_test(api, memory_and_the_error_function);
    tcase_add_test(api, message_memory_errors_before_init);
    tcase_add_test(api, status_strings_and_version);
    tcase_add_test(api, tagged_output_before_init);
    suite_add_tcase(suite, api);
    return meridian_test::run_suite(suite);
}
