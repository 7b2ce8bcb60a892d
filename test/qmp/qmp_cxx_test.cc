// SPDX-License-Identifier: BSD-3-Clause
// The C++ binding (qmp.hpp): Session, the machine and logical topology
// queries, layoutGrid, MessageMemory of every kind, SingleOperation and
// MultiOperation (relative and addressed, declared once, started many
// times, members handed to the multiple), the collectives, errors and
// aligned memory -- with the values checked as in the C tests.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "mca/qmp/qmp.hpp"
#include "qmp_check.h"

namespace
{

int me = 0;
int n = 1;

void machine()
{
    qc_int("QMP::getNumberOfNodes()", n, QMP::getNumberOfNodes());
    qc_int("QMP::getNodeNumber()", me, QMP::getNodeNumber());
    // The processes on this host, as the launcher counts them (mpirun over
    // several hosts puts fewer than n here).
    const char *local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    qc_int("QMP::getSMPCount() (the processes on this host)",
           local != nullptr ? std::atoi(local) : n, QMP::getSMPCount());
    qc_int("QMP::getMsgPassingType() of a plain run", QMP_SWITCH, QMP::getMsgPassingType());
    // A switched machine has no allocated grid (QMP 2.5, as the C API says).
    qc_int("QMP::getAllocatedNumberOfDimensions() of a switched machine", 0,
           QMP::getAllocatedNumberOfDimensions());
    qc_true("QMP::getAllocatedDimensions() of a switched machine is NULL",
            QMP::getAllocatedDimensions() == nullptr);
    qc_true("QMP::getAllocatedCoordinates() of a switched machine is NULL",
            QMP::getAllocatedCoordinates() == nullptr);
    qc_int("QMP::getLogicalNumberOfDimensions() before a topology", 0,
           QMP::getLogicalNumberOfDimensions());
    qc_true("QMP::getLogicalDimensions() before a topology is NULL",
            QMP::getLogicalDimensions() == nullptr);
    qc_str("QMP::errorString(QMP_INVALID_ARG)", "invalid function arguments",
           QMP::errorString(QMP_INVALID_ARG));
}

// layoutGrid declares the logical topology: 4x4x4x8 on 1, 2, 4 nodes is
// {1,1,1,n} with subgrid {4,4,4,8/n}.
void layout()
{
    const QMP_u32_t lattice[4] = {4, 4, 4, 8};
    qc_int("QMP::logicalTopologyIsDeclared() before layoutGrid", QMP_FALSE,
           QMP::logicalTopologyIsDeclared());
    if (!qc_int("QMP::layoutGrid({4,4,4,8})", QMP_TRUE, QMP::layoutGrid(lattice, 4))) {
        return;
    }
    qc_int("QMP::logicalTopologyIsDeclared() after layoutGrid", QMP_TRUE,
           QMP::logicalTopologyIsDeclared());
    qc_int("QMP::getLogicalNumberOfDimensions()", 4, QMP::getLogicalNumberOfDimensions());
    const int logical[4] = {1, 1, 1, n};
    const int subgrid[4] = {4, 4, 4, 8 / n};
    const QMP_u32_t *ld = QMP::getLogicalDimensions();
    const QMP_u32_t *sd = QMP::getSubgridDimensions();
    for (int i = 0; i < 4; ++i) {
        char call[64];
        std::snprintf(call, sizeof call, "QMP::getLogicalDimensions()[%d]", i);
        qc_int(call, logical[i], ld ? static_cast<long long>(ld[i]) : -1);
        std::snprintf(call, sizeof call, "QMP::getSubgridDimensions()[%d]", i);
        qc_int(call, subgrid[i], sd ? static_cast<long long>(sd[i]) : -1);
    }
    qc_int("QMP::getNumberOfSubgridSites()", 4 * 4 * 4 * 8 / n, QMP::getNumberOfSubgridSites());
    const QMP_u32_t *c = QMP::getLogicalCoordinates();
    qc_int("QMP::getLogicalCoordinates()[3]", me, c ? static_cast<long long>(c[3]) : -1);
    for (int node = 0; node < n; ++node) {
        const std::vector<QMP_u32_t> v = QMP::logicalCoordinatesFrom(static_cast<QMP_u32_t>(node));
        if (!qc_int("QMP::logicalCoordinatesFrom(node).size()", 4,
                    static_cast<long long>(v.size()))) {
            continue;
        }
        qc_int("QMP::logicalCoordinatesFrom(node)[3]", node, v[3]);
        qc_int("QMP::getNodeNumberFrom(QMP::logicalCoordinatesFrom(node))", node,
               QMP::getNodeNumberFrom(v.data()));
        const QMP_u32_t *p = QMP::getLogicalCoordinatesFrom(static_cast<QMP_u32_t>(node));
        qc_int("QMP::getLogicalCoordinatesFrom(node)[3]", node,
               p ? static_cast<long long>(p[3]) : -1);
    }
    qc_true("QMP::logicalCoordinatesFrom(n + 5) is empty",
            QMP::logicalCoordinatesFrom(static_cast<QMP_u32_t>(n + 5)).empty());
}

// Relative operations along axis 3 (the one the layout split), addressed
// ones around the ring; a multiple of both; every value checked, 50 rounds.
void operations()
{
    const int up = (me + 1) % n;
    const int down = (me + n - 1) % n;
    int send_up[8] = {0}, send_down[8] = {0}, from_down[8] = {0}, from_up[8] = {0};
    QMP::MessageMemory mu(send_up, sizeof send_up);
    QMP::MessageMemory md(send_down, sizeof send_down);
    QMP::MessageMemory rd(from_down, sizeof from_down);
    QMP::MessageMemory ru(from_up, sizeof from_up);
    if (!qc_true("QMP::MessageMemory(contiguous) valid", mu.valid() && md && rd && ru)) {
        return;
    }
    QMP::SingleOperation ops[4];
    qc_status("SingleOperation::declareReceive(rd, 3, MINUS)", QMP_SUCCESS,
              ops[0].declareReceive(&rd, 3, QMP::MINUS));
    qc_status("SingleOperation::declareReceive(ru, 3, PLUS)", QMP_SUCCESS,
              ops[1].declareReceive(&ru, 3, QMP::PLUS));
    qc_status("SingleOperation::declareSend(mu, 3, PLUS)", QMP_SUCCESS,
              ops[2].declareSend(&mu, 3, QMP::PLUS));
    qc_status("SingleOperation::declareSend(md, 3, MINUS)", QMP_SUCCESS,
              ops[3].declareSend(&md, 3, QMP::MINUS));
    qc_status("SingleOperation declared twice", QMP_CHDEF_ERR, ops[0].declareReceive(&rd, 3, PLUS));
    qc_status("SingleOperation::getErrorNumber() after the refused declare", QMP_CHDEF_ERR,
              ops[0].getErrorNumber());
    QMP::SingleOperation undeclared;
    qc_status("start() of an undeclared SingleOperation", QMP_INVALID_OP, undeclared.start());

    // Alone first, each started and waited on by itself.
    for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < 8; ++i) {
            send_up[i] = me * 1000 + round * 10 + 1;
            send_down[i] = me * 1000 + round * 10 + 2;
            from_down[i] = from_up[i] = -1;
        }
        for (QMP::SingleOperation &op : ops) {
            if (op.start() != QMP_SUCCESS) {
                qc_fail("SingleOperation::start() round %d: %s", round, op.getErrorString());
            }
        }
        while (!ops[0].isComplete()) {
        }
        for (QMP::SingleOperation &op : ops) {
            if (op.wait() != QMP_SUCCESS) {
                qc_fail("SingleOperation::wait() round %d: %s", round, op.getErrorString());
            }
        }
        if (!qc_int("received from the - neighbour (sent +)", down * 1000 + round * 10 + 1,
                    from_down[7]) ||
            !qc_int("received from the + neighbour (sent -)", up * 1000 + round * 10 + 2,
                    from_up[0])) {
            break;
        }
    }

    // Then as one MultiOperation (which takes the handles over).
    {
        QMP::MultiOperation all(ops, 4);
        if (qc_true("QMP::MultiOperation(ops, 4) valid", all.valid())) {
            for (int round = 0; round < 50; ++round) {
                send_up[0] = round;
                send_down[0] = -round;
                qc_status("MultiOperation::start()", QMP_SUCCESS, all.start());
                qc_status("MultiOperation::wait()", QMP_SUCCESS, all.wait());
                if (!qc_int("multiple: from the - neighbour", round, from_down[0]) ||
                    !qc_int("multiple: from the + neighbour", -round, from_up[0])) {
                    break;
                }
            }
            QMP::MultiOperation again;
            again.init(ops, 4);
            qc_status("MultiOperation of operations already in one", QMP_CHDEF_ERR,
                      again.getErrorNumber());
        }
    }
    qc_true("operations are undeclared once their MultiOperation is gone", !ops[0].valid());

    // Addressed, and a multiple built from pointers.
    int out = me, in = -1;
    QMP::MessageMemory mo(&out, sizeof out), mi(&in, sizeof in);
    QMP::SingleOperation s, r;
    qc_status("SingleOperation::declareSend(mo, next node)", QMP_SUCCESS, s.declareSend(&mo, up));
    qc_status("SingleOperation::declareReceive(mi, previous node)", QMP_SUCCESS,
              r.declareReceive(&mi, down));
    QMP::SingleOperation *pair[2] = {&r, &s};
    QMP::MultiOperation both(pair, 2);
    qc_status("MultiOperation(pointers)::start()", QMP_SUCCESS, both.start());
    qc_status("MultiOperation(pointers)::wait()", QMP_SUCCESS, both.wait());
    qc_int("addressed: received from the previous node", down, in);
    QMP::MultiOperation moved(std::move(both));
    qc_true("a moved-from MultiOperation is empty, the new one valid",
            !both.valid() && moved.valid());
    out = me + 100;
    moved.start();
    moved.wait();
    qc_int("addressed, after a move: received", down + 100, in);
}

// Strided (negative stride too), strided array and indexed memory along the
// ring, through named constructors and the specification's constructors.
void memory_kinds()
{
    const int up = (me + 1) % n;
    const int down = (me + n - 1) % n;
    int field[4][5];
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 5; ++x) {
            field[y][x] = me * 100 + y * 10 + x;
        }
    }
    // Column 4, every 5th int (spec constructor: blksize, nblocks, stride).
    QMP::MessageMemory column(&field[0][4], sizeof(int), 4, 5 * sizeof(int));
    // Column 0 bottom-up (negative stride, named constructor).
    QMP::MessageMemory backwards = QMP::MessageMemory::strided(
        &field[3][0], sizeof(int), 4, -static_cast<std::ptrdiff_t>(5 * sizeof(int)));
    // Row 0 and column 2 (strided array).
    void *bases[2] = {field[0], &field[0][2]};
    std::size_t blk[2] = {5 * sizeof(int), sizeof(int)};
    int counts[2] = {1, 4};
    std::ptrdiff_t strides[2] = {0, 5 * sizeof(int)};
    QMP::MessageMemory mixed = QMP::MessageMemory::stridedArray(bases, blk, counts, strides, 2);
    // Elements 1, 7-8 (indexed).
    const int blocklen[2] = {1, 2};
    const int index[2] = {1, 7};
    QMP::MessageMemory picked =
        QMP::MessageMemory::indexed(&field[0][0], blocklen, index, sizeof(int), 2);
    qc_true("MessageMemory strided / negative stride / stridedArray / indexed valid",
            column.valid() && backwards.valid() && mixed.valid() && picked.valid());
    QMP::MessageMemory empty = QMP::MessageMemory::stridedArray(bases, blk, counts, strides, 0);
    qc_status("MessageMemory::stridedArray(num 0).status()", QMP_INVALID_ARG, empty.status());

    int got_column[4], got_backwards[4], got_mixed[9], got_picked[3];
    QMP::MessageMemory r1(got_column, sizeof got_column), r2(got_backwards, sizeof got_backwards),
        r3(got_mixed, sizeof got_mixed), r4(got_picked, sizeof got_picked);
    QMP::SingleOperation ops[8];
    QMP::MessageMemory *sends[4] = {&column, &backwards, &mixed, &picked};
    QMP::MessageMemory *recvs[4] = {&r1, &r2, &r3, &r4};
    for (int i = 0; i < 4; ++i) {
        ops[2 * i].declareSend(sends[i], up);
        ops[2 * i + 1].declareReceive(recvs[i], down);
    }
    QMP::MultiOperation all;
    all.init({&ops[1], &ops[3], &ops[5], &ops[7], &ops[0], &ops[2], &ops[4], &ops[6]});
    if (!qc_true("MultiOperation of the memory kinds", all.valid())) {
        return;
    }
    qc_status("start", QMP_SUCCESS, all.start());
    qc_status("wait", QMP_SUCCESS, all.wait());
    for (int y = 0; y < 4; ++y) {
        qc_int("strided column from the previous node", down * 100 + y * 10 + 4, got_column[y]);
        qc_int("negative stride from the previous node", down * 100 + (3 - y) * 10,
               got_backwards[y]);
        qc_int("strided array (column part)", down * 100 + y * 10 + 2, got_mixed[5 + y]);
    }
    for (int x = 0; x < 5; ++x) {
        qc_int("strided array (row part)", down * 100 + x, got_mixed[x]);
    }
    qc_int("indexed element 1", down * 100 + 1, got_picked[0]);
    qc_int("indexed element 7", down * 100 + 12, got_picked[1]);
    qc_int("indexed element 8", down * 100 + 13, got_picked[2]);
}

void xor_op(void *inout, void *in)
{
    *static_cast<unsigned *>(inout) ^= *static_cast<unsigned *>(in);
}

void collectives()
{
    QMP_s32_t i = me + 1;
    qc_status("QMP::sumInt", QMP_SUCCESS, QMP::sumInt(&i));
    qc_int("QMP::sumInt(rank + 1)", n * (n + 1) / 2, i);
    QMP_float_t f = 0.5f;
    QMP::sumFloat(&f);
    qc_double("QMP::sumFloat(0.5)", 0.5 * n, f);
    QMP_double_t d = 0.25 * me;
    QMP::sumDouble(&d);
    qc_double("QMP::sumDouble(0.25 rank)", 0.125 * n * (n - 1), d);
    d = 1.5;
    QMP::sumDoubleExtended(&d);
    qc_double("QMP::sumDoubleExtended(1.5)", 1.5 * n, d);
    std::vector<QMP_double_t> da(1000, 1.0);
    std::vector<QMP_float_t> fa(10, 2.0f);
    qc_status("QMP::sumDoubleArray", QMP_SUCCESS, QMP::sumDoubleArray(da.data(), 1000));
    qc_status("QMP::sumFloatArray", QMP_SUCCESS, QMP::sumFloatArray(fa.data(), 10));
    qc_double("QMP::sumDoubleArray(1.0)[999]", n, da[999]);
    qc_double("QMP::sumFloatArray(2.0)[9]", 2.0 * n, fa[9]);
    QMP_s32_t m = me == 0 ? -5 : me;
    QMP::maxInt(&m);
    qc_int("QMP::maxInt", n == 1 ? -5 : n - 1, m);
    m = me == 0 ? -5 : me;
    QMP::minInt(&m);
    qc_int("QMP::minInt", -5, m);
    QMP_float_t fm = static_cast<QMP_float_t>(me);
    QMP::maxFloat(&fm);
    qc_double("QMP::maxFloat", n - 1, fm);
    QMP_double_t dm = static_cast<QMP_double_t>(me);
    QMP::minDouble(&dm);
    qc_double("QMP::minDouble", 0, dm);
    unsigned bits = 1u << me;
    qc_status("QMP::binaryReduction", QMP_SUCCESS,
              QMP::binaryReduction(&bits, sizeof bits, xor_op));
    qc_int("QMP::binaryReduction(xor of 1 << rank)", (1 << n) - 1, bits);
    QMP_u64_t x = UINT64_C(1) << (40 + me);
    qc_status("QMP::globalXor", QMP_SUCCESS, QMP::globalXor(&x));
    qc_true("QMP::globalXor(1 << (40 + rank))",
            x == ((UINT64_C(1) << (40 + n)) - (UINT64_C(1) << 40)));
    char word[6] = "-----";
    if (me == 0) {
        std::memcpy(word, "hello", 6);
    }
    qc_status("QMP::broadcast", QMP_SUCCESS, QMP::broadcast(word, 6));
    qc_str("QMP::broadcast from node 0", "hello", word);
    qc_status("QMP::waitForBarrier(10000)", QMP_SUCCESS, QMP::waitForBarrier(10000));
    qc_status("QMP::barrier()", QMP_SUCCESS, QMP::barrier());
}

void aligned()
{
    void *p = QMP::allocateAlignedMemory(1000);
    if (qc_true("QMP::allocateAlignedMemory(1000)", p != nullptr)) {
        qc_int("QMP::allocateAlignedMemory alignment", 0,
               static_cast<long long>(reinterpret_cast<std::uintptr_t>(p) % QMP_ALIGN_DEFAULT));
        std::memset(p, 0, 1000);
        QMP::freeAlignedMemory(p);
    }
    QMP::AlignedMemoryPtr owned = QMP::makeAlignedMemory(5000, 4096);
    if (qc_true("QMP::makeAlignedMemory(5000, 4096)", owned != nullptr)) {
        qc_int("QMP::makeAlignedMemory alignment", 0,
               static_cast<long long>(reinterpret_cast<std::uintptr_t>(owned.get()) % 4096));
        std::memset(owned.get(), 1, 5000);
    }
}

} // namespace

int main(int argc, char **argv)
{
    qc_watchdog("qmp_cxx_test", 60);
    int status = 1;
    {
        QMP::Session session(&argc, &argv, QMP_THREAD_SERIALIZED);
        if (!qc_status("QMP::Session", QMP_SUCCESS, session.status())) {
            return 1;
        }
        qc_int("QMP::Session::provided()", QMP_THREAD_SERIALIZED, session.provided());
        me = static_cast<int>(QMP::getNodeNumber());
        n = static_cast<int>(QMP::getNumberOfNodes());
        machine();
        layout();
        operations();
        memory_kinds();
        collectives();
        aligned();
        // The verdict while QMP is up; the Session finalizes.
        status = qc_finish("qmp_cxx_test", 0);
    }
    if (QMP_is_initialized()) {
        std::printf("FAIL rank %d: QMP still initialized after the Session ended\n", me);
        return 1;
    }
    return status;
}
