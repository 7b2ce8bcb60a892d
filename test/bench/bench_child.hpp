// SPDX-License-Identifier: BSD-3-Clause
// Run one measurement in a child process of its own, so that the peak
// resident set reported (wait4's ru_maxrss) is that of the measurement alone,
// not the largest seen by the benchmark so far.  Shared by the benchmarks.
#ifndef MERIDIAN_TEST_BENCH_BENCH_CHILD_HPP
#define MERIDIAN_TEST_BENCH_BENCH_CHILD_HPP

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>

namespace bench
{

template <typename Measurement> struct ChildResult {
    Measurement m;
    double peak_mib = 0; // the child's peak RSS
};

// `measure()` runs in the child and returns a trivially copyable result, sent
// back through a pipe.  `what` names the run in the failure message
// ("PROGRAM: WHAT failed").
template <typename Measure>
auto in_child(const char *program, const std::string &what, Measure measure)
    -> std::optional<ChildResult<decltype(measure())>>
{
    using Measurement = decltype(measure());
    static_assert(std::is_trivially_copyable_v<Measurement>);
    int fds[2];
    if (pipe(fds) != 0) {
        std::fprintf(stderr, "%s: pipe failed\n", program);
        std::exit(1);
    }
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        std::fprintf(stderr, "%s: fork failed\n", program);
        std::exit(1);
    }
    if (pid == 0) {
        close(fds[0]);
        const Measurement m = measure();
        const ssize_t written = write(fds[1], &m, sizeof m);
        _exit(written == static_cast<ssize_t>(sizeof m) ? 0 : 1);
    }
    close(fds[1]);
    ChildResult<Measurement> result;
    const ssize_t got = read(fds[0], &result.m, sizeof result.m);
    close(fds[0]);
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        got != static_cast<ssize_t>(sizeof result.m)) {
        std::fprintf(stderr, "%s: %s failed\n", program, what.c_str());
        return std::nullopt;
    }
    result.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB
    return result;
}

} // namespace bench

#endif
