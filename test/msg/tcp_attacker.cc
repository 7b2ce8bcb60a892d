// SPDX-License-Identifier: BSD-3-Clause
// A stranger at the tcp path's listener: what tcp_attack.sh sends from
// outside a running job, one attack per call, each bounded in count and
// time.  It prints what it saw and exits 1 when the listener let it in (an
// answer to a hello that proves nothing, a connection held past the time
// limit), 2 on bad usage or when it cannot even connect.
//
//   tcp_attacker forge HOST:PORT FROM TO NSPACE
//                                              a well-formed hello for rank TO
//                                              of the job NSPACE (its right
//                                              namespace, the old greeting's
//                                              only secret) claiming rank FROM
//                                              with a made-up key, then a
//                                              header and bytes
//   tcp_attacker brute HOST:PORT FROM TO NSPACE N
//                                              N such hellos, each on its own
//                                              connection (at most 20 s)
//   tcp_attacker garbage HOST:PORT BYTES       random bytes
//   tcp_attacker huge HOST:PORT FROM TO        a made-up hello, then headers of
//                                              2^62 and 3 GiB bytes and a stream
//   tcp_attacker trickle HOST:PORT FROM TO     half a hello a byte at a time,
//                                              then close
//   tcp_attacker flood HOST:PORT N SECONDS [SETTLE]
//                                              N connections that say nothing,
//                                              held SECONDS, then up to SETTLE
//                                              seconds more (default 0) until
//                                              the listener has closed them
//                                              all: how many it closed
//   tcp_attacker keyed HOST:PORT FROM TO KEYFILE NSPACE SOURCE
//                                              a hello proved with rank FROM's
//                                              real key (KEYFILE: 32 bytes, as
//                                              a captured hello would be),
//                                              sent from SOURCE, twice: the
//                                              second is a replay
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "components/msg_tcp/msg_tcp_auth.hpp"
#include "components/msg_tcp/msg_tcp_socket.hpp"

namespace
{

namespace tcp = meridian::msg_tcp;
using Clock = std::chrono::steady_clock;

[[noreturn]] void usage(const char *why)
{
    std::fprintf(stderr, "tcp_attacker: %s (see the header of tcp_attacker.cc)\n", why);
    std::exit(2);
}

tcp::Address parse_address(const std::string &text)
{
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) {
        usage(("not HOST:PORT: " + text).c_str());
    }
    tcp::Address address;
    auto *in = reinterpret_cast<sockaddr_in *>(&address.storage);
    in->sin_family = AF_INET;
    in->sin_port = htons(static_cast<std::uint16_t>(std::stoi(text.substr(colon + 1))));
    if (::inet_pton(AF_INET, text.substr(0, colon).c_str(), &in->sin_addr) != 1) {
        usage(("not an IPv4 address: " + text).c_str());
    }
    address.length = sizeof(sockaddr_in);
    return address;
}

// A blocking connection (from source when given); -1 when refused.
int connect_blocking(const tcp::Address &to, const char *source = nullptr)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (source != nullptr) {
        sockaddr_in from{};
        from.sin_family = AF_INET;
        ::inet_pton(AF_INET, source, &from.sin_addr);
        if (::bind(fd, reinterpret_cast<sockaddr *>(&from), sizeof from) != 0) {
            std::perror("tcp_attacker: bind");
            ::close(fd);
            return -1;
        }
    }
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&to.storage), to.length) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// A connection the attack needs (exit 2 when the listener is not there).
int connect_or_exit(const tcp::Address &to)
{
    const int fd = connect_blocking(to);
    if (fd < 0) {
        usage("cannot connect");
    }
    return fd;
}

void send_all(int fd, const void *data, std::size_t n)
{
    const auto *p = static_cast<const char *>(data);
    while (n > 0) {
        const ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL);
        if (sent <= 0) {
            return; // the listener closed it: what the attack wants to see
        }
        p += sent;
        n -= static_cast<std::size_t>(sent);
    }
}

// What the listener does within ms: the bytes it answered before it closed
// (or -1 when it kept the connection open all that time).
long answered(int fd, int ms)
{
    long total = 0;
    const auto until = Clock::now() + std::chrono::milliseconds(ms);
    char buffer[256];
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
        if (left.count() <= 0) {
            return -1;
        }
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
            continue;
        }
        const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
        if (got <= 0) {
            return total;
        }
        total += got;
    }
}

// What the listener did within 5 s after the attack's bytes: the attack
// holds when it closed without a byte.  Closes fd; 0 or 1.
int closed_silently(int fd, const char *what)
{
    const long got = answered(fd, 5000);
    ::close(fd);
    std::printf("%s; the listener answered %ld bytes and %s\n", what, got < 0 ? 0 : got,
                got == 0  ? "closed: ok"
                : got < 0 ? "kept it open: FAIL"
                          : "closed: FAIL");
    return got == 0 ? 0 : 1;
}

// The job the forged hellos claim (the right one where the attack knows
// its namespace).
std::uint64_t forged_job = 0;

tcp::HelloBytes forged_hello(std::uint32_t from, std::uint32_t to, std::mt19937_64 &random)
{
    tcp::Key guess{};
    for (auto &b : guess) {
        b = static_cast<std::uint8_t>(random());
    }
    return tcp::make_hello(guess, forged_job, tcp::Hello{from, to, tcp::new_nonce()});
}

std::uint32_t rank_arg(const char *text)
{
    return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
}

// One hello that proves nothing; then what the earlier transport took as a
// message header and its bytes.  The listener must close without a byte.
int forge(const tcp::Address &to, std::uint32_t from, std::uint32_t rank, std::mt19937_64 &random)
{
    const int fd = connect_or_exit(to);
    const auto hello = forged_hello(from, rank, random);
    send_all(fd, hello.data(), hello.size());
    const std::uint64_t header[2] = {7, 16};
    send_all(fd, header, sizeof header);
    send_all(fd, "stranger's bytes", 16);
    return closed_silently(fd, "forge: a hello with a made-up key, a header and 16 bytes");
}

int brute(const tcp::Address &to, std::uint32_t from, std::uint32_t rank, int tries,
          std::mt19937_64 &random)
{
    int let_in = 0;
    int made = 0;
    const auto until = Clock::now() + std::chrono::seconds(20);
    for (; made < tries && Clock::now() < until; ++made) {
        const int fd = connect_blocking(to);
        if (fd < 0) {
            break;
        }
        const auto hello = forged_hello(from, rank, random);
        send_all(fd, hello.data(), hello.size());
        if (answered(fd, 2000) != 0) {
            ++let_in;
        }
        ::close(fd);
    }
    std::printf("brute: %d tries, %d answered: %s\n", made, let_in,
                let_in == 0 && made > 0 ? "ok" : "FAIL");
    return let_in == 0 && made > 0 ? 0 : 1;
}

int garbage(const tcp::Address &to, std::size_t bytes, std::mt19937_64 &random)
{
    const int fd = connect_or_exit(to);
    std::vector<unsigned char> junk(bytes);
    for (auto &b : junk) {
        b = static_cast<unsigned char>(random());
    }
    send_all(fd, junk.data(), junk.size());
    return closed_silently(fd, ("garbage: " + std::to_string(bytes) + " bytes").c_str());
}

int huge(const tcp::Address &to, std::uint32_t from, std::uint32_t rank, std::mt19937_64 &random)
{
    const int fd = connect_or_exit(to);
    const auto hello = forged_hello(from, rank, random);
    send_all(fd, hello.data(), hello.size());
    const std::uint64_t headers[4] = {1, std::uint64_t{1} << 62, 2, std::uint64_t{3} << 30};
    send_all(fd, headers, sizeof headers);
    std::vector<char> stream(1 << 20, 'x');
    int sent_mib = 0;
    for (; sent_mib < 64; ++sent_mib) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, 200) <= 0 || (p.revents & (POLLERR | POLLHUP)) != 0) {
            break;
        }
        if (::send(fd, stream.data(), stream.size(), MSG_NOSIGNAL | MSG_DONTWAIT) <= 0) {
            break;
        }
    }
    return closed_silently(
        fd, ("huge: headers of 2^62 and 3 GiB, about " + std::to_string(sent_mib) + " MiB sent")
                .c_str());
}

int trickle(const tcp::Address &to, std::uint32_t from, std::uint32_t rank, std::mt19937_64 &random)
{
    const int fd = connect_or_exit(to);
    const auto hello = forged_hello(from, rank, random);
    for (std::size_t i = 0; i < hello.size() / 2; ++i) {
        send_all(fd, &hello[i], 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::close(fd);
    std::printf("trickle: %zu bytes of a hello claiming rank %u, then closed: ok\n",
                hello.size() / 2, from);
    return 0;
}

int flood(const tcp::Address &to, int count, int seconds, int settle)
{
    // As many descriptors as this process may have.
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    std::vector<int> fds;
    const auto until = Clock::now() + std::chrono::seconds(30);
    for (int i = 0; i < count && Clock::now() < until; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            break;
        }
        if (::connect(fd, reinterpret_cast<const sockaddr *>(&to.storage), to.length) != 0 &&
            errno != EINPROGRESS) {
            ::close(fd);
            break;
        }
        fds.push_back(fd);
    }
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    // Closed by the listener: the read side says end of stream (or reset).
    // A loaded machine (a sanitizer build beside others) may be slower to
    // get to them all: looked at again every 100 ms for SETTLE seconds.
    std::vector<bool> gone(fds.size(), false);
    int closed = 0;
    const auto settled = Clock::now() + std::chrono::seconds(settle);
    for (;;) {
        for (std::size_t i = 0; i < fds.size(); ++i) {
            char byte;
            const ssize_t got = gone[i] ? 1 : ::recv(fds[i], &byte, 1, MSG_DONTWAIT);
            if (!gone[i] && (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK))) {
                gone[i] = true;
                ++closed;
            }
        }
        if (static_cast<std::size_t>(closed) == fds.size() || Clock::now() >= settled) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (const int fd : fds) {
        ::close(fd);
    }
    std::printf("flood: %zu connections held %d s, %d closed by the listener\n", fds.size(),
                seconds, closed);
    return fds.empty() ? 2 : 0;
}

int keyed(const tcp::Address &to, std::uint32_t from, std::uint32_t rank, const char *key_file,
          const std::string &nspace, const char *source)
{
    std::ifstream in(key_file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() != tcp::key_bytes) {
        usage("the key file does not hold 32 bytes");
    }
    tcp::Key key;
    std::memcpy(key.data(), bytes.data(), key.size());
    const auto hello =
        tcp::make_hello(key, tcp::job_id(nspace), tcp::Hello{from, rank, tcp::new_nonce()});
    long got[2] = {};
    for (long &g : got) {
        const int fd = connect_blocking(to, source);
        if (fd < 0) {
            usage("cannot connect");
        }
        send_all(fd, hello.data(), hello.size());
        g = answered(fd, 5000);
        ::close(fd);
    }
    std::printf("keyed from %s: the listener answered %ld bytes, then %ld to the same hello\n",
                source, got[0], got[1]);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        usage("a mode and HOST:PORT");
    }
    const std::string mode = argv[1];
    const tcp::Address to = parse_address(argv[2]);
    std::mt19937_64 random(std::random_device{}());
    forged_job = random();
    if (mode == "forge" && argc == 6) {
        forged_job = tcp::job_id(argv[5]);
        return forge(to, rank_arg(argv[3]), rank_arg(argv[4]), random);
    }
    if (mode == "brute" && argc == 7) {
        forged_job = tcp::job_id(argv[5]);
        return brute(to, rank_arg(argv[3]), rank_arg(argv[4]), std::atoi(argv[6]), random);
    }
    if (mode == "garbage" && argc == 4) {
        return garbage(to, std::strtoul(argv[3], nullptr, 10), random);
    }
    if (mode == "huge" && argc == 5) {
        return huge(to, rank_arg(argv[3]), rank_arg(argv[4]), random);
    }
    if (mode == "trickle" && argc == 5) {
        return trickle(to, rank_arg(argv[3]), rank_arg(argv[4]), random);
    }
    if (mode == "flood" && (argc == 5 || argc == 6)) {
        return flood(to, std::atoi(argv[3]), std::atoi(argv[4]),
                     argc == 6 ? std::atoi(argv[5]) : 0);
    }
    if (mode == "keyed" && argc == 8) {
        return keyed(to, rank_arg(argv[3]), rank_arg(argv[4]), argv[5], argv[6], argv[7]);
    }
    usage(("unknown mode or wrong arguments: " + mode).c_str());
}
