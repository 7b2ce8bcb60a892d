/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What bench_qmp.c and bench_mpi.c share, so that both measure the same
 * thing the same way: the message sizes, iteration counts, rounds, the halo
 * cases, the data pattern and the lines they print (read by
 * run-qmp-bench.sh):
 *
 *   pp|SIZE|US            ping-pong: half the round-trip time of SIZE bytes
 *   pp-persistent|SIZE|US (MPI only) the same with persistent requests
 *   halo|NAME|BYTES|US    one 4-D halo exchange (BYTES sent per process)
 *   sum|US                one global sum of a double
 *   trips|SIZE|N          (--pingpong-only) the round trips of SIZE bytes
 *                         the process made in its ping-pong function
 *                         (pingpong, pingpong_blocking: never inlined, so
 *                         run-instructions-bench.sh counts inside them)
 *
 * Every figure is the best of --rounds rounds (default 5) of a number of
 * iterations chosen per size (about 256 MB moved, 20 to 20000 iterations;
 * --scale multiplies it), after warm-up iterations.  --pingpong-only: the
 * ping-pong and no other case (and no persistent requests in bench_mpi).  Plain C99 (mpicc
 * builds bench_mpi.c outside of make).  bench_connect.c takes the data
 * pattern from here too.
 */
#ifndef BENCH_COMM_H
#define BENCH_COMM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MIN_SIZE 8
#define BENCH_MAX_SIZE (4L << 20)

struct bench_options {
    int rounds;
    double scale;
    long max_size;
    int pingpong_only;
};

/* --rounds N, --scale F, --max-size BYTES, --pingpong-only; returns 0, or 2
 * after a message. */
static inline int bench_parse(struct bench_options *o, int argc, char **argv, const char *me)
{
    o->rounds = 5;
    o->scale = 1.0;
    o->max_size = BENCH_MAX_SIZE;
    o->pingpong_only = 0;
    for (int i = 1; i < argc; ++i) {
        char *end = NULL;
        if (strcmp(argv[i], "--pingpong-only") == 0) {
            o->pingpong_only = 1;
        } else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
            o->rounds = (int)strtol(argv[++i], &end, 10);
            if (*end || o->rounds < 1)
                goto bad;
        } else if (i + 1 < argc && strcmp(argv[i], "--scale") == 0) {
            o->scale = strtod(argv[++i], &end);
            if (*end || !(o->scale > 0))
                goto bad;
        } else if (i + 1 < argc && strcmp(argv[i], "--max-size") == 0) {
            o->max_size = strtol(argv[++i], &end, 10);
            if (*end || o->max_size < BENCH_MIN_SIZE || o->max_size > BENCH_MAX_SIZE)
                goto bad;
        } else {
            goto bad;
        }
        continue;
    bad:
        fprintf(stderr,
                "%s: bad argument '%s'\nusage: %s [--rounds N>=1] [--scale F>0] "
                "[--max-size BYTES (8..4194304)] [--pingpong-only]\n",
                me, argv[i], me);
        return 2;
    }
    return 0;
}

/* Round trips per round for a message of `size` bytes. */
static inline long bench_iterations(long size, double scale)
{
    double n = 256e6 / (double)(size + 4096) * scale;
    if (n < 20 * scale)
        n = 20 * scale;
    if (n > 20000 * scale)
        n = 20000 * scale;
    return n < 1 ? 1 : (long)n;
}

/* The byte pattern process `rank` sends at `size`: never all one value. */
static inline unsigned char bench_pattern(int rank, long size, long i)
{
    return (unsigned char)(i * 31 + size * 7 + rank * 101 + 1);
}
static inline void bench_fill(unsigned char *p, int rank, long size)
{
    for (long i = 0; i < size; ++i)
        p[i] = bench_pattern(rank, size, i);
}
/* The first index where p is not the pattern, or -1. */
static inline long bench_check(const unsigned char *p, int rank, long size)
{
    for (long i = 0; i < size; ++i)
        if (p[i] != bench_pattern(rank, size, i))
            return i;
    return -1;
}

/* The halo cases: a 4-D lattice of 72-byte sites (an SU(3) matrix in single
 * precision) split in two along one dimension; each process sends its two
 * faces to the other and receives two halos.  Split along t the faces are
 * contiguous; split along x they are 16^3 blocks of one site each. */
struct bench_halo {
    const char *name;
    long blocks;     /* blocks in a face */
    long block;      /* bytes per block */
    long stride;     /* bytes from block to block in the field */
    long field;      /* bytes of the local field */
    long hi_offset;  /* where the face at x = L-1 starts */
    long iterations; /* per round, before --scale */
};
#define BENCH_SITE 72L
static const struct bench_halo bench_halos[] = {
    /* 16x16x16x32 on 2 processes: 16^4 local sites, faces of 16^3 sites */
    {"t-split 16^3x32 (contiguous faces)", 1, 4096 * BENCH_SITE, 4096 * BENCH_SITE,
     65536 * BENCH_SITE, 15 * 4096 * BENCH_SITE, 500},
    /* 32x16x16x16 on 2 processes: x is the fastest index, faces are strided */
    {"x-split 32x16^3 (strided faces, 72 B blocks)", 4096, BENCH_SITE, 16 * BENCH_SITE,
     65536 * BENCH_SITE, 15 * BENCH_SITE, 500},
};
#define BENCH_NHALOS (sizeof bench_halos / sizeof bench_halos[0])

/* Calls of the global sum per round. */
#define BENCH_SUM_ITERATIONS 20000L

#endif /* BENCH_COMM_H */
