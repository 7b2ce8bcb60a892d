/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory and message memory, by a halo exchange of each kind on a ring (the
 * default communicator as a 1-d logical topology; with 2 processes both
 * neighbours are the same process, alone both are this process).  Every
 * process holds a field A[y][x] = rank*10000 + y*100 + x and sends faces to
 * both neighbours at once; every received element is checked.
 *   contiguous (rows), strided (columns, into strided ghost columns), strided
 *   with 2-element blocks, strided with a negative stride, strided array,
 *   indexed (into another index pattern), contiguous into strided, 4 MiB
 *   strided, an empty message, change_address of strided memory; aligned
 *   allocation and QMP_free_aligned_memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mca/qmp/qmp.h"
#include "qmp_check.h"

enum { LX = 8, LY = 6, GX = LX + 2, SENTINEL = -7 };

static int me, n, up, down; /* down: the -1 neighbour, up: the +1 neighbour */

static int code(int rank, int x, int y)
{
    return rank * 10000 + y * 100 + x;
}

/* Start the four channels (send +, send -, receive from -, receive from +)
 * and wait; the messages from the - side went + and vice versa. */
static int exchange(const char *label, QMP_msgmem_t send_up, QMP_msgmem_t send_down,
                    QMP_msgmem_t recv_from_down, QMP_msgmem_t recv_from_up)
{
    if (!send_up || !send_down || !recv_from_down || !recv_from_up) {
        qc_fail("%s: declaring message memory failed: %s", label, QMP_get_error_string(NULL));
        return 0;
    }
    QMP_msghandle_t h[4] = {
        QMP_declare_receive_relative(recv_from_down, 0, -1, 0),
        QMP_declare_receive_relative(recv_from_up, 0, +1, 0),
        QMP_declare_send_relative(send_up, 0, +1, 0),
        QMP_declare_send_relative(send_down, 0, -1, 0),
    };
    for (int i = 0; i < 4; ++i) {
        if (h[i] == NULL) {
            qc_fail("%s: declaring channel %d failed: %s", label, i, QMP_get_error_string(NULL));
            for (int j = 0; j < 4; ++j) {
                QMP_free_msghandle(h[j]);
            }
            return 0;
        }
    }
    int ok = 1;
    for (int i = 0; i < 4; ++i) {
        ok = qc_status(label, QMP_SUCCESS, QMP_start(h[i])) && ok;
    }
    ok = ok && qc_status(label, QMP_SUCCESS, QMP_wait_all(h, 4));
    for (int i = 0; i < 4; ++i) {
        QMP_free_msghandle(h[i]);
    }
    return ok;
}

static void free_mems(QMP_msgmem_t a, QMP_msgmem_t b, QMP_msgmem_t c, QMP_msgmem_t d)
{
    QMP_free_msgmem(a);
    QMP_free_msgmem(b);
    QMP_free_msgmem(c);
    QMP_free_msgmem(d);
}

/* Checks values element by element; reports the first few differences. */
static void expect_values(const char *label, const int *got, const int *want, int count)
{
    int bad = 0;
    for (int i = 0; i < count; ++i) {
        if (got[i] != want[i]) {
            if (bad < 3) {
                qc_fail("%s: element %d: expected %d, got %d", label, i, want[i], got[i]);
            }
            ++bad;
        }
    }
    if (bad > 3) {
        qc_fail("%s: %d of %d elements wrong", label, bad, count);
    }
}

static void field(int (*a)[LX])
{
    for (int y = 0; y < LY; ++y) {
        for (int x = 0; x < LX; ++x) {
            a[y][x] = code(me, x, y);
        }
    }
}

static void check_field_intact(const char *label, int (*a)[LX])
{
    int want[LY][LX];
    field(want);
    expect_values(label, &a[0][0], &want[0][0], LX * LY);
}

static void contiguous(int (*a)[LX])
{
    int from_down[LX], from_up[LX], want[LX];
    for (int i = 0; i < LX; ++i) {
        from_down[i] = from_up[i] = SENTINEL;
    }
    QMP_msgmem_t su = QMP_declare_msgmem(a[LY - 1], sizeof a[LY - 1]);
    QMP_msgmem_t sd = QMP_declare_msgmem(a[0], sizeof a[0]);
    QMP_msgmem_t rd = QMP_declare_msgmem(from_down, sizeof from_down);
    QMP_msgmem_t ru = QMP_declare_msgmem(from_up, sizeof from_up);
    if (exchange("contiguous rows", su, sd, rd, ru)) {
        for (int x = 0; x < LX; ++x) {
            want[x] = code(down, x, LY - 1);
        }
        expect_values("contiguous: last row of the - neighbour", from_down, want, LX);
        for (int x = 0; x < LX; ++x) {
            want[x] = code(up, x, 0);
        }
        expect_values("contiguous: first row of the + neighbour", from_up, want, LX);
    }
    free_mems(su, sd, rd, ru);
}

/* Columns into the ghost columns of a wider array (strided on both sides);
 * the interior must stay untouched. */
static void strided(int (*a)[LX])
{
    static int g[LY][GX];
    for (int y = 0; y < LY; ++y) {
        for (int x = 0; x < GX; ++x) {
            g[y][x] = SENTINEL;
        }
    }
    QMP_msgmem_t su = QMP_declare_strided_msgmem(&a[0][LX - 1], sizeof(int), LY, LX * sizeof(int));
    QMP_msgmem_t sd = QMP_declare_strided_msgmem(&a[0][0], sizeof(int), LY, LX * sizeof(int));
    QMP_msgmem_t rd = QMP_declare_strided_msgmem(&g[0][0], sizeof(int), LY, GX * sizeof(int));
    QMP_msgmem_t ru = QMP_declare_strided_msgmem(&g[0][GX - 1], sizeof(int), LY, GX * sizeof(int));
    if (exchange("strided columns", su, sd, rd, ru)) {
        int bad = 0;
        for (int y = 0; y < LY; ++y) {
            for (int x = 0; x < GX; ++x) {
                const int want = x == 0        ? code(down, LX - 1, y)
                                 : x == GX - 1 ? code(up, 0, y)
                                               : SENTINEL;
                if (g[y][x] != want && bad++ < 3) {
                    qc_fail("strided: ghost array [%d][%d]: expected %d, got %d", y, x, want,
                            g[y][x]);
                }
            }
        }
    }
    free_mems(su, sd, rd, ru);
    /* The same columns with 2-int blocks into contiguous buffers. */
    int from_down[2 * LY], from_up[2 * LY], want[2 * LY];
    su = QMP_declare_strided_msgmem(&a[0][LX - 2], 2 * sizeof(int), LY, LX * sizeof(int));
    sd = QMP_declare_strided_msgmem(&a[0][0], 2 * sizeof(int), LY, LX * sizeof(int));
    rd = QMP_declare_msgmem(from_down, sizeof from_down);
    ru = QMP_declare_msgmem(from_up, sizeof from_up);
    if (exchange("strided 2-int blocks", su, sd, rd, ru)) {
        for (int y = 0; y < LY; ++y) {
            want[2 * y] = code(down, LX - 2, y);
            want[2 * y + 1] = code(down, LX - 1, y);
        }
        expect_values("strided 2-int blocks from the - neighbour", from_down, want, 2 * LY);
        for (int y = 0; y < LY; ++y) {
            want[2 * y] = code(up, 0, y);
            want[2 * y + 1] = code(up, 1, y);
        }
        expect_values("strided 2-int blocks from the + neighbour", from_up, want, 2 * LY);
    }
    free_mems(su, sd, rd, ru);
}

/* A negative stride walks the column bottom-up. */
static void negative_stride(int (*a)[LX])
{
    int from_down[LY], from_up[LY], want[LY];
    const ptrdiff_t back = -(ptrdiff_t)(LX * sizeof(int));
    QMP_msgmem_t su = QMP_declare_strided_msgmem(&a[LY - 1][LX - 1], sizeof(int), LY, back);
    QMP_msgmem_t sd = QMP_declare_strided_msgmem(&a[LY - 1][0], sizeof(int), LY, back);
    QMP_msgmem_t rd = QMP_declare_msgmem(from_down, sizeof from_down);
    QMP_msgmem_t ru = QMP_declare_msgmem(from_up, sizeof from_up);
    if (exchange("negative stride", su, sd, rd, ru)) {
        for (int i = 0; i < LY; ++i) {
            want[i] = code(down, LX - 1, LY - 1 - i);
        }
        expect_values("negative stride: last column bottom-up from the - neighbour", from_down,
                      want, LY);
        for (int i = 0; i < LY; ++i) {
            want[i] = code(up, 0, LY - 1 - i);
        }
        expect_values("negative stride: first column bottom-up from the + neighbour", from_up, want,
                      LY);
    }
    free_mems(su, sd, rd, ru);
}

/* A strided array: a column and a row in one message. */
static void strided_array(int (*a)[LX])
{
    enum { COUNT = LY + LX };
    int from_down[COUNT], from_up[COUNT], want[COUNT];
    void *base_up[2] = {&a[0][LX - 1], a[LY - 1]};
    void *base_down[2] = {&a[0][0], a[0]};
    size_t blk[2] = {sizeof(int), LX * sizeof(int)};
    int nblocks[2] = {LY, 1};
    ptrdiff_t stride[2] = {LX * sizeof(int), 0};
    QMP_msgmem_t su = QMP_declare_strided_array_msgmem(base_up, blk, nblocks, stride, 2);
    QMP_msgmem_t sd = QMP_declare_strided_array_msgmem(base_down, blk, nblocks, stride, 2);
    /* Received into a strided array too: the column into even slots of a
     * scratch array, the row after it. */
    int scratch_down[2 * LY + LX], scratch_up[2 * LY + LX];
    for (int i = 0; i < 2 * LY + LX; ++i) {
        scratch_down[i] = scratch_up[i] = SENTINEL;
    }
    void *rbase_down[2] = {&scratch_down[0], &scratch_down[2 * LY]};
    void *rbase_up[2] = {&scratch_up[0], &scratch_up[2 * LY]};
    ptrdiff_t rstride[2] = {2 * sizeof(int), 0};
    QMP_msgmem_t rd = QMP_declare_strided_array_msgmem(rbase_down, blk, nblocks, rstride, 2);
    QMP_msgmem_t ru = QMP_declare_strided_array_msgmem(rbase_up, blk, nblocks, rstride, 2);
    if (exchange("strided array", su, sd, rd, ru)) {
        for (int y = 0; y < LY; ++y) {
            from_down[y] = scratch_down[2 * y];
            from_up[y] = scratch_up[2 * y];
            qc_int("strided array: untouched odd slot (- side)", SENTINEL, scratch_down[2 * y + 1]);
            qc_int("strided array: untouched odd slot (+ side)", SENTINEL, scratch_up[2 * y + 1]);
        }
        for (int x = 0; x < LX; ++x) {
            from_down[LY + x] = scratch_down[2 * LY + x];
            from_up[LY + x] = scratch_up[2 * LY + x];
        }
        for (int y = 0; y < LY; ++y) {
            want[y] = code(down, LX - 1, y);
        }
        for (int x = 0; x < LX; ++x) {
            want[LY + x] = code(down, x, LY - 1);
        }
        expect_values("strided array from the - neighbour", from_down, want, COUNT);
        for (int y = 0; y < LY; ++y) {
            want[y] = code(up, 0, y);
        }
        for (int x = 0; x < LX; ++x) {
            want[LY + x] = code(up, x, 0);
        }
        expect_values("strided array from the + neighbour", from_up, want, COUNT);
    }
    free_mems(su, sd, rd, ru);
}

/* Indexed: blocks of 1, 2, 3 and 1 elements at scattered places of the
 * flattened field, into another scattered pattern. */
static void indexed(int (*a)[LX])
{
    int blocklen[4] = {1, 2, 3, 1};
    int index_up[4] = {5, 11, 30, 47};
    int index_down[4] = {0, 8, 20, 40};
    int rindex[4] = {1, 4, 9, 15};
    int from_down[16], from_up[16];
    for (int i = 0; i < 16; ++i) {
        from_down[i] = from_up[i] = SENTINEL;
    }
    int *flat = &a[0][0];
    QMP_msgmem_t su = QMP_declare_indexed_msgmem(flat, blocklen, index_up, sizeof(int), 4);
    QMP_msgmem_t sd = QMP_declare_indexed_msgmem(flat, blocklen, index_down, sizeof(int), 4);
    QMP_msgmem_t rd = QMP_declare_indexed_msgmem(from_down, blocklen, rindex, sizeof(int), 4);
    QMP_msgmem_t ru = QMP_declare_indexed_msgmem(from_up, blocklen, rindex, sizeof(int), 4);
    if (exchange("indexed", su, sd, rd, ru)) {
        int want_down[16], want_up[16];
        for (int i = 0; i < 16; ++i) {
            want_down[i] = want_up[i] = SENTINEL;
        }
        for (int b = 0; b < 4; ++b) {
            for (int k = 0; k < blocklen[b]; ++k) {
                const int su_i = index_up[b] + k, sd_i = index_down[b] + k;
                want_down[rindex[b] + k] = code(down, su_i % LX, su_i / LX);
                want_up[rindex[b] + k] = code(up, sd_i % LX, sd_i / LX);
            }
        }
        expect_values("indexed from the - neighbour (and gaps untouched)", from_down, want_down,
                      16);
        expect_values("indexed from the + neighbour (and gaps untouched)", from_up, want_up, 16);
    }
    free_mems(su, sd, rd, ru);
}

/* Contiguous rows into strided columns of a tall array. */
static void contiguous_into_strided(int (*a)[LX])
{
    static int tall[LX][3];
    for (int i = 0; i < LX; ++i) {
        tall[i][0] = tall[i][1] = tall[i][2] = SENTINEL;
    }
    QMP_msgmem_t su = QMP_declare_msgmem(a[LY - 1], sizeof a[LY - 1]);
    QMP_msgmem_t sd = QMP_declare_msgmem(a[0], sizeof a[0]);
    QMP_msgmem_t rd = QMP_declare_strided_msgmem(&tall[0][0], sizeof(int), LX, 3 * sizeof(int));
    QMP_msgmem_t ru = QMP_declare_strided_msgmem(&tall[0][2], sizeof(int), LX, 3 * sizeof(int));
    if (exchange("contiguous into strided", su, sd, rd, ru)) {
        for (int x = 0; x < LX; ++x) {
            qc_int("contiguous into strided: from the - neighbour", code(down, x, LY - 1),
                   tall[x][0]);
            qc_int("contiguous into strided: from the + neighbour", code(up, x, 0), tall[x][2]);
            qc_int("contiguous into strided: middle column untouched", SENTINEL, tall[x][1]);
        }
    }
    free_mems(su, sd, rd, ru);
}

/* 4 MiB in 1 KiB blocks, every other KiB of an 8 MiB buffer. */
static void large_strided(void)
{
    enum { BLOCK = 1024, BLOCKS = 4096 };
    const size_t words = (size_t)2 * BLOCK * BLOCKS / sizeof(uint32_t);
    QMP_mem_t *src = QMP_allocate_memory(words * sizeof(uint32_t));
    QMP_mem_t *dst_down = QMP_allocate_memory((size_t)BLOCK * BLOCKS);
    QMP_mem_t *dst_up = QMP_allocate_memory((size_t)BLOCK * BLOCKS);
    if (!qc_true("QMP_allocate_memory (8 MiB and 2 x 4 MiB)", src && dst_down && dst_up)) {
        return;
    }
    uint32_t *s = QMP_get_memory_pointer(src);
    for (size_t i = 0; i < words; ++i) {
        s[i] = (uint32_t)me << 24 ^ (uint32_t)i;
    }
    uint32_t *dd = QMP_get_memory_pointer(dst_down);
    uint32_t *du = QMP_get_memory_pointer(dst_up);
    memset(dd, 0xff, (size_t)BLOCK * BLOCKS);
    memset(du, 0xff, (size_t)BLOCK * BLOCKS);
    /* Up: the even KiBs; down: the odd ones. */
    QMP_msgmem_t su = QMP_declare_strided_msgmem(s, BLOCK, BLOCKS, 2 * BLOCK);
    QMP_msgmem_t sd = QMP_declare_strided_msgmem((char *)s + BLOCK, BLOCK, BLOCKS, 2 * BLOCK);
    QMP_msgmem_t rd = QMP_declare_msgmem(dd, (size_t)BLOCK * BLOCKS);
    QMP_msgmem_t ru = QMP_declare_msgmem(du, (size_t)BLOCK * BLOCKS);
    if (exchange("4 MiB strided", su, sd, rd, ru)) {
        const size_t per_block = BLOCK / sizeof(uint32_t);
        int bad = 0;
        for (size_t b = 0; b < BLOCKS && bad < 3; ++b) {
            for (size_t k = 0; k < per_block; ++k) {
                const uint32_t want_d = (uint32_t)down << 24 ^ (uint32_t)(2 * b * per_block + k);
                const uint32_t want_u =
                    (uint32_t)up << 24 ^ (uint32_t)((2 * b + 1) * per_block + k);
                if (dd[b * per_block + k] != want_d) {
                    qc_fail("4 MiB strided from the - neighbour: word %zu: expected %u, got %u",
                            b * per_block + k, want_d, dd[b * per_block + k]);
                    ++bad;
                    break;
                }
                if (du[b * per_block + k] != want_u) {
                    qc_fail("4 MiB strided from the + neighbour: word %zu: expected %u, got %u",
                            b * per_block + k, want_u, du[b * per_block + k]);
                    ++bad;
                    break;
                }
            }
        }
    }
    free_mems(su, sd, rd, ru);
    QMP_free_memory(src);
    QMP_free_memory(dst_down);
    QMP_free_memory(dst_up);
}

static void empty_message(void)
{
    char nothing[1] = {'x'};
    QMP_msgmem_t m[4];
    for (int i = 0; i < 4; ++i) {
        m[i] = QMP_declare_msgmem(nothing, 0);
    }
    exchange("empty messages", m[0], m[1], m[2], m[3]);
    qc_int("an empty receive leaves its memory alone", 'x', nothing[0]);
    free_mems(m[0], m[1], m[2], m[3]);
}

/* change_address moves strided memory as a whole: the same column shape at
 * another base, on the same channels. */
static void change_address_strided(int (*a)[LX])
{
    int from_down[LY], from_up[LY];
    QMP_msgmem_t col = QMP_declare_strided_msgmem(&a[0][0], sizeof(int), LY, LX * sizeof(int));
    QMP_msgmem_t rd = QMP_declare_msgmem(from_down, sizeof from_down);
    QMP_msgmem_t ru = QMP_declare_msgmem(from_up, sizeof from_up);
    QMP_msghandle_t h[4] = {
        QMP_declare_receive_relative(rd, 0, -1, 0),
        QMP_declare_receive_relative(ru, 0, +1, 0),
        QMP_declare_send_relative(col, 0, +1, 0),
        QMP_declare_send_relative(col, 0, -1, 0),
    };
    if (!qc_true("declaring channels on one strided memory", h[0] && h[1] && h[2] && h[3])) {
        return;
    }
    for (int x = 0; x < LX; x += 3) {
        qc_status("QMP_change_address(send +, column x)", QMP_SUCCESS,
                  QMP_change_address(h[2], &a[0][x]));
        qc_status("QMP_change_address(send -, column LX-1-x)", QMP_SUCCESS,
                  QMP_change_address(h[3], &a[0][LX - 1 - x]));
        for (int i = 0; i < 4; ++i) {
            QMP_start(h[i]);
        }
        qc_status("QMP_wait_all (readdressed strided)", QMP_SUCCESS, QMP_wait_all(h, 4));
        for (int y = 0; y < LY; ++y) {
            char call[96];
            snprintf(call, sizeof call, "readdressed column %d from the - neighbour, row %d", x, y);
            qc_int(call, code(down, x, y), from_down[y]);
            snprintf(call, sizeof call, "readdressed column %d from the + neighbour, row %d",
                     LX - 1 - x, y);
            qc_int(call, code(up, LX - 1 - x, y), from_up[y]);
        }
    }
    for (int i = 0; i < 4; ++i) {
        QMP_free_msghandle(h[i]);
    }
    QMP_free_msgmem(col);
    QMP_free_msgmem(rd);
    QMP_free_msgmem(ru);
}

static void allocation(void)
{
    QMP_mem_t *m = QMP_allocate_memory(1000);
    if (qc_true("QMP_allocate_memory(1000)", m != NULL)) {
        char *p = QMP_get_memory_pointer(m);
        qc_int("QMP_allocate_memory: pointer aligned to QMP_ALIGN_DEFAULT", 0,
               (long long)((uintptr_t)p % QMP_ALIGN_DEFAULT));
        memset(p, 1, 1000);
        QMP_free_memory(m);
    }
    m = QMP_allocate_aligned_memory(3000, 4096, QMP_MEM_DEFAULT);
    if (qc_true("QMP_allocate_aligned_memory(3000, 4096)", m != NULL)) {
        char *p = QMP_get_memory_pointer(m);
        qc_int("QMP_allocate_aligned_memory(3000, 4096): alignment", 0,
               (long long)((uintptr_t)p % 4096));
        memset(p, 2, 3000);
        QMP_free_memory(m);
    }
    m = QMP_allocate_aligned_memory(10, QMP_ALIGN_ANY, QMP_MEM_NONCACHE);
    if (qc_true("QMP_allocate_aligned_memory(10, QMP_ALIGN_ANY)", m != NULL)) {
        memset(QMP_get_memory_pointer(m), 3, 10);
        /* 2002: freed by the pointer. */
        QMP_free_aligned_memory(QMP_get_memory_pointer(m));
    }
    QMP_free_memory(NULL);
}

int main(int argc, char **argv)
{
    qc_watchdog("qmp_mem_test", 90);
    QMP_thread_level_t provided;
    if (!qc_status("QMP_init_msg_passing", QMP_SUCCESS,
                   QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided))) {
        return 1;
    }
    me = QMP_get_node_number();
    n = QMP_get_number_of_nodes();
    up = (me + 1) % n;
    down = (me + n - 1) % n;
    const int dims[1] = {n};
    if (!qc_status("QMP_declare_logical_topology({n})", QMP_SUCCESS,
                   QMP_declare_logical_topology(dims, 1))) {
        return qc_finish("qmp_mem_test", 1);
    }
    allocation();
    QMP_mem_t *fm = QMP_allocate_memory(sizeof(int[LY][LX]));
    int(*a)[LX] = QMP_get_memory_pointer(fm);
    field(a);
    contiguous(a);
    strided(a);
    negative_stride(a);
    strided_array(a);
    indexed(a);
    contiguous_into_strided(a);
    change_address_strided(a);
    check_field_intact("the sent field is unchanged", a);
    large_strided();
    empty_message();
    QMP_free_memory(fm);
    return qc_finish("qmp_mem_test", 1);
}
