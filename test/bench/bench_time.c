/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wall-clock timing of a command for the meridian_info benchmark:
 *
 *   bench_time RUNS WARMUP COMMAND [ARG...]
 *
 * runs the command WARMUP times untimed, then RUNS times, each with its output
 * thrown away, and prints "median min max" in milliseconds.  A run that does
 * not exit 0 stops it with an error: a failing program is not measured.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One run; returns its wall time, or a negative number when it failed. */
static double run_once(char **argv)
{
    const double start = now_ms();
    const pid_t pid = fork();
    if (pid < 0) {
        perror("bench_time: fork");
        return -1;
    }
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) {
        perror("bench_time: waitpid");
        return -1;
    }
    const double elapsed = now_ms() - start;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_time: %s failed (status %d)\n", argv[0], status);
        return -1;
    }
    return elapsed;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a;
    const double y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_time RUNS WARMUP COMMAND [ARG...]\n");
        return 2;
    }
    const int runs = atoi(argv[1]);
    const int warmup = atoi(argv[2]);
    if (runs < 1 || runs > 1000 || warmup < 0) {
        fprintf(stderr, "bench_time: RUNS must be 1-1000 and WARMUP at least 0\n");
        return 2;
    }
    for (int i = 0; i < warmup; ++i) {
        if (run_once(argv + 3) < 0) {
            return 1;
        }
    }
    double times[1000];
    for (int i = 0; i < runs; ++i) {
        if ((times[i] = run_once(argv + 3)) < 0) {
            return 1;
        }
    }
    qsort(times, (size_t)runs, sizeof times[0], by_value);
    const double median =
        runs % 2 == 1 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
    printf("%.1f %.1f %.1f\n", median, times[0], times[runs - 1]);
    return 0;
}
