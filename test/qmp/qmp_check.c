/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks and verdicts shared by the QMP integration tests (qmp_check.h). */
#include "qmp_check.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
static const char *watchdog_name = "";
static unsigned watchdog_seconds = 0;

int qc_rank(void)
{
    if (QMP_is_initialized()) {
        return QMP_comm_get_node_number(QMP_comm_get_allocated());
    }
    const char *text = getenv("PMIX_RANK");
    return text != NULL ? atoi(text) : 0;
}

void qc_fail(const char *format, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    ++failures;
    printf("FAIL rank %d: %s\n", qc_rank(), text);
    fflush(stdout);
}

int qc_failures(void)
{
    return failures;
}

int qc_int(const char *call, long long expected, long long got)
{
    if (expected == got) {
        return 1;
    }
    qc_fail("%s: expected %lld, got %lld", call, expected, got);
    return 0;
}

int qc_true(const char *call, int condition)
{
    if (condition) {
        return 1;
    }
    qc_fail("%s: expected true, got false", call);
    return 0;
}

const char *qc_arg(int argc, char **argv, const char *key)
{
    const size_t len = strlen(key);
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], key, len) == 0 && argv[i][len] == '=') {
            return argv[i] + len + 1;
        }
    }
    return NULL;
}

int qc_status(const char *call, QMP_status_t expected, QMP_status_t got)
{
    if (expected == got) {
        return 1;
    }
    qc_fail("%s: expected status %d (%s), got %d (%s)", call, (int)expected,
            QMP_error_string(expected), (int)got, QMP_error_string(got));
    return 0;
}

int qc_str(const char *call, const char *expected, const char *got)
{
    if (got != NULL && strcmp(expected, got) == 0) {
        return 1;
    }
    qc_fail("%s: expected \"%s\", got %s%s%s", call, expected, got ? "\"" : "", got ? got : "NULL",
            got ? "\"" : "");
    return 0;
}

int qc_str_prefix(const char *call, const char *expected, const char *got)
{
    if (got != NULL && strncmp(expected, got, strlen(expected)) == 0) {
        return 1;
    }
    qc_fail("%s: expected text starting \"%s\", got %s%s%s", call, expected, got ? "\"" : "",
            got ? got : "NULL", got ? "\"" : "");
    return 0;
}

int qc_str_contains(const char *call, const char *expected, const char *got)
{
    if (got != NULL && strstr(got, expected) != NULL) {
        return 1;
    }
    qc_fail("%s: expected text containing \"%s\", got %s%s%s", call, expected, got ? "\"" : "",
            got ? got : "NULL", got ? "\"" : "");
    return 0;
}

const char *qc_format_ints(char *buf, size_t size, const int *v, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    if (v == NULL) {
        snprintf(buf, size, "NULL");
        return buf;
    }
    for (int i = 0; i < n && used < size; ++i) {
        used += (size_t)snprintf(buf + used, size - used, i ? ",%d" : "%d", v[i]);
    }
    return buf;
}

int qc_ints(const char *call, const int *expected, const int *got, int n)
{
    if (got != NULL && memcmp(expected, got, (size_t)n * sizeof(int)) == 0) {
        return 1;
    }
    char want[256], have[256];
    qc_fail("%s: expected {%s}, got {%s}", call, qc_format_ints(want, sizeof want, expected, n),
            qc_format_ints(have, sizeof have, got, n));
    return 0;
}

int qc_double(const char *call, double expected, double got)
{
    if (memcmp(&expected, &got, sizeof got) == 0) {
        return 1;
    }
    qc_fail("%s: expected %.17g, got %.17g", call, expected, got);
    return 0;
}

static void on_alarm(int sig)
{
    (void)sig;
    char text[256];
    const int len =
        snprintf(text, sizeof text, "FAIL rank %d: watchdog: %s still running after %u s\n",
                 qc_rank(), watchdog_name, watchdog_seconds);
    if (len > 0) {
        ssize_t ignored = write(STDOUT_FILENO, text, (size_t)len);
        (void)ignored;
    }
    _exit(3);
}

void qc_watchdog(const char *name, unsigned seconds)
{
    watchdog_name = name;
    watchdog_seconds = seconds;
    signal(SIGALRM, on_alarm);
    alarm(seconds);
}

/* FNV-1a: enough to tell two byte strings apart in a test. */
static uint64_t hash_bytes(const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 1099511628211ULL;
    }
    return h;
}

enum { SHOWN = 16, SLOT = 8 + SHOWN };

int qc_same_everywhere(QMP_comm_t comm, const char *what, const void *bytes, size_t n)
{
    const int size = QMP_comm_get_number_of_nodes(comm);
    const int me = QMP_comm_get_node_number(comm);
    double *all = calloc((size_t)size * SLOT, sizeof(double));
    if (all == NULL) {
        qc_fail("%s: out of memory", what);
        return 0;
    }
    unsigned char mine[SLOT] = {0};
    const uint64_t h = hash_bytes(bytes, n);
    memcpy(mine, &h, sizeof h);
    memcpy(mine + 8, bytes, n < SHOWN ? n : SHOWN);
    for (int i = 0; i < SLOT; ++i) {
        all[(size_t)me * SLOT + (size_t)i] = mine[i];
    }
    const QMP_status_t st = QMP_comm_sum_double_array(comm, all, size * SLOT);
    int same = qc_status("QMP_comm_sum_double_array (gathering to compare)", QMP_SUCCESS, st);
    for (int r = 0; same && r < size; ++r) {
        for (int i = 0; i < SLOT; ++i) {
            if (all[(size_t)r * SLOT + (size_t)i] != (double)mine[i]) {
                char text[3 * SHOWN + 1] = {0}, theirs[3 * SHOWN + 1] = {0};
                for (int k = 0; k < SHOWN; ++k) {
                    snprintf(text + 3 * k, 4, "%02x ", mine[8 + k]);
                    snprintf(theirs + 3 * k, 4, "%02x ",
                             (unsigned)all[(size_t)r * SLOT + 8 + (size_t)k]);
                }
                qc_fail("%s: not the same on every process: here %s..., on comm rank %d %s...",
                        what, text, r, theirs);
                same = 0;
                break;
            }
        }
    }
    free(all);
    return same;
}

int qc_gather_int(QMP_comm_t comm, int value, int *out)
{
    const int size = QMP_comm_get_number_of_nodes(comm);
    const int me = QMP_comm_get_node_number(comm);
    double *all = calloc((size_t)size, sizeof(double));
    if (all == NULL) {
        return 0;
    }
    all[me] = value;
    const QMP_status_t st = QMP_comm_sum_double_array(comm, all, size);
    for (int r = 0; r < size; ++r) {
        out[r] = (int)all[r];
    }
    free(all);
    return qc_status("QMP_comm_sum_double_array (gathering)", QMP_SUCCESS, st);
}

int qc_finish(const char *name, int finalize)
{
    int total = failures;
    int rank = 0, size = 1;
    if (QMP_is_initialized()) {
        rank = QMP_comm_get_node_number(QMP_comm_get_allocated());
        size = QMP_comm_get_number_of_nodes(QMP_comm_get_allocated());
        if (QMP_comm_sum_int(QMP_comm_get_allocated(), &total) != QMP_SUCCESS) {
            qc_fail("QMP_comm_sum_int (the verdict) failed");
            total = failures;
        }
        if (finalize) {
            QMP_finalize_msg_passing();
        }
    }
    if (total == 0 && failures == 0) {
        printf("ok: %s (rank %d of %d)\n", name, rank, size);
    } else {
        printf("FAIL rank %d: %s: %d failed checks here, %d in the job\n", rank, name, failures,
               total);
    }
    fflush(stdout);
    return total == 0 && failures == 0 ? 0 : 1;
}

int qc_parse_ints(const char *text, int *out, int max, int min)
{
    int n = 0;
    const char *p = text;
    while (*p != '\0') {
        char *end = NULL;
        const long v = strtol(p, &end, 10);
        if (end == p || v < min || v > INT_MAX || n == max) {
            return 0;
        }
        out[n++] = (int)v;
        p = end;
        if (*p == 'x' || *p == ',') {
            ++p;
        } else if (*p != '\0') {
            return 0;
        }
    }
    return n;
}

int qc_parse_dims(const char *text, int *dims, int max)
{
    return qc_parse_ints(text, dims, max, 1);
}
