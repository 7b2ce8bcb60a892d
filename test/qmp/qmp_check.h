/* SPDX-License-Identifier: BSD-3-Clause */
/* What every QMP integration test program shares: checks that print what
 * failed (rank, call, expected, got) and keep going, a watchdog so nothing
 * hangs, a way to compare bytes across processes, and the verdict.
 *
 * A program prints "FAIL rank R: ..." for each failed check and, at the end,
 * "ok: NAME (rank R of N)" when every process passed; the drivers count the
 * ok lines.  The exit status is non-zero when any process failed. */
#ifndef MERIDIAN_TEST_QMP_CHECK_H
#define MERIDIAN_TEST_QMP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "mca/qmp/qmp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This process's rank in the job: QMP's allocated communicator once QMP is
 * up, the launcher's PMIX_RANK before, 0 when started alone. */
int qc_rank(void);

/* Count a failure and print "FAIL rank R: <what>". */
void qc_fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
int qc_failures(void);

/* Checks; each returns 1 when it held.  `call` names what was checked. */
int qc_int(const char *call, long long expected, long long got);
int qc_true(const char *call, int condition);

/* The value of a "KEY=VALUE" argument (argv[1..]), NULL when none is given. */
const char *qc_arg(int argc, char **argv, const char *key);
int qc_status(const char *call, QMP_status_t expected, QMP_status_t got);
int qc_str(const char *call, const char *expected, const char *got);
/* got starts with / contains expected. */
int qc_str_prefix(const char *call, const char *expected, const char *got);
int qc_str_contains(const char *call, const char *expected, const char *got);
int qc_ints(const char *call, const int *expected, const int *got, int n);
int qc_double(const char *call, double expected, double got);

/* Exit with "FAIL rank R: watchdog: NAME still running after S s" when the
 * program runs longer than `seconds` (a hang is a failure, not a stuck
 * build).  0 disables. */
void qc_watchdog(const char *name, unsigned seconds);

/* Whether `bytes` are the same on every process of comm (a hash and the
 * first bytes are gathered through QMP_comm_sum_double_array, which is exact
 * for one non-zero term per slot).  Prints the differing processes. */
int qc_same_everywhere(QMP_comm_t comm, const char *what, const void *bytes, size_t n);

/* Every process's `value`, in comm rank order (out has the communicator's
 * size entries), gathered the same exact way. */
int qc_gather_int(QMP_comm_t comm, int value, int *out);

/* The verdict: sums the failures over the allocated communicator, prints
 * "ok: NAME (rank R of N)" when none, finalizes QMP when `finalize`, and
 * returns the exit status. */
int qc_finish(const char *name, int finalize);

/* "2x2x1" or "1,0" -> {2,2,1} or {1,0}: whole numbers of at least min,
 * separated by 'x' or ','; returns the count (0 on bad text, at most max). */
int qc_parse_ints(const char *text, int *out, int max, int min);
/* Dimensions: qc_parse_ints with min 1. */
int qc_parse_dims(const char *text, int *dims, int max);
/* Format n ints as "a,b,c" into buf. */
const char *qc_format_ints(char *buf, size_t size, const int *v, int n);

#ifdef __cplusplus
}
#endif

#endif
