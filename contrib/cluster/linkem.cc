// SPDX-License-Identifier: BSD-3-Clause
// meridian-linkem: a link emulator for the simulated cluster
// (contrib/cluster/cluster.sh), for kernels built without netem.
//
// It stands in the middle of a host's link, between two network
// interfaces of the switches' namespace: every frame that arrives on the
// host's side (--host IF) leaves on the switch's side (--switch IF) after
// --delay, unless --loss drops it; every frame from the switch's side goes to
// the host at once.  That is what `tc qdisc add dev eth0 root netem delay D
// loss P` does on the host's eth0: the host's outgoing frames are delayed and
// dropped, its incoming ones are not.
//
// Frames are read and written through packet sockets with virtio-net
// headers, so that a veth's large TCP segments (GSO) and its checksums left
// to the hardware (CHECKSUM_PARTIAL) cross as they are, neither split nor
// dropped for a bad checksum.  At most --limit frames wait at once (netem's
// default, 1000); beyond that a frame is dropped, as netem drops it.
//
// Runs until killed.  Prints "ready" on standard output once both sockets
// are bound, so that a script can wait for it.
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace
{

using Clock = std::chrono::steady_clock;

// A frame as a packet socket with PACKET_VNET_HDR hands it over: the
// virtio-net header (struct virtio_net_hdr, 10 bytes; <linux/virtio_net.h>
// is not C++), then the Ethernet frame (a GSO frame reaches 64 KiB).
constexpr std::size_t vnet_header_size = 10;
constexpr std::size_t frame_capacity = vnet_header_size + 65536 + 64;

struct Options {
    std::string host_if;
    std::string switch_if;
    std::chrono::microseconds delay{0};
    unsigned loss_per_million = 0;
    std::size_t limit = 1000;
    std::optional<std::uint64_t> seed;
};

struct Waiting {
    Clock::time_point due;
    std::vector<std::uint8_t> bytes;
};

[[noreturn]] void fail(const std::string &what)
{
    std::fprintf(stderr, "meridian-linkem: %s\n", what.c_str());
    std::exit(1);
}

std::string errno_text(const std::string &what)
{
    return what + ": " + std::strerror(errno);
}

// A socket file descriptor, closed when it goes.
class Fd
{
  public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    ~Fd()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    int get() const { return fd_; }

  private:
    int fd_;
};

// "2ms", "500us", "1s", "0": a duration of at most 10 s.
std::optional<std::chrono::microseconds> parse_delay(std::string_view text)
{
    std::uint64_t number = 0;
    const char *end = text.data() + text.size();
    auto [rest, error] = std::from_chars(text.data(), end, number);
    if (error != std::errc() || rest == text.data())
        return std::nullopt;
    const std::string_view unit(rest, static_cast<std::size_t>(end - rest));
    std::uint64_t scale = 0;
    if (unit == "us") {
        scale = 1;
    } else if (unit == "ms") {
        scale = 1000;
    } else if (unit == "s") {
        scale = 1000000;
    } else if (unit.empty() && number == 0) {
        scale = 1;
    } else {
        return std::nullopt;
    }
    if (number > 10000000 / scale)
        return std::nullopt;
    return std::chrono::microseconds(number * scale);
}

// "5%", "0.5%", "100%": a chance in parts per million.
std::optional<unsigned> parse_loss(std::string_view text)
{
    if (text.empty() || text.back() != '%')
        return std::nullopt;
    text.remove_suffix(1);
    const auto point = text.find('.');
    const std::string_view whole = text.substr(0, point);
    std::string_view fraction =
        point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
    if (whole.empty() || fraction.size() > 4)
        return std::nullopt;
    unsigned percent = 0;
    auto [rest, error] = std::from_chars(whole.data(), whole.data() + whole.size(), percent);
    if (error != std::errc() || rest != whole.data() + whole.size() || percent > 100)
        return std::nullopt;
    unsigned parts = percent * 10000;
    unsigned scale = 1000;
    for (const char digit : fraction) {
        if (digit < '0' || digit > '9')
            return std::nullopt;
        parts += static_cast<unsigned>(digit - '0') * scale;
        scale /= 10;
    }
    if (parts > 1000000)
        return std::nullopt;
    return parts;
}

constexpr const char *usage =
    "usage: meridian-linkem --host IF --switch IF [--delay D] [--loss P%] [--limit N] [--seed N]\n"
    "  D: 0, or a number with us, ms or s (at most 10 s); P: 0-100, up to 4 decimals\n";

Options parse_options(int argc, char **argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::fputs(usage, stdout);
            std::exit(0);
        }
        if (i + 1 >= argc)
            fail(std::string(flag) + " expects a value\n" + usage);
        const std::string_view value = argv[++i];
        if (flag == "--host") {
            options.host_if = value;
        } else if (flag == "--switch") {
            options.switch_if = value;
        } else if (flag == "--delay") {
            const auto delay = parse_delay(value);
            if (!delay)
                fail("--delay: expected 0 or a number with us, ms or s (at most 10 s), found \"" +
                     std::string(value) + "\"");
            options.delay = *delay;
        } else if (flag == "--loss") {
            const auto loss = parse_loss(value);
            if (!loss)
                fail("--loss: expected a percentage 0-100 such as 5%, found \"" +
                     std::string(value) + "\"");
            options.loss_per_million = *loss;
        } else if (flag == "--limit" || flag == "--seed") {
            std::uint64_t number = 0;
            auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), number);
            if (error != std::errc() || rest != value.data() + value.size() ||
                (flag == "--limit" && number == 0))
                fail(std::string(flag) + ": expected a positive number, found \"" +
                     std::string(value) + "\"");
            if (flag == "--limit")
                options.limit = number;
            else
                options.seed = number;
        } else {
            fail("unknown option \"" + std::string(flag) + "\"\n" + usage);
        }
    }
    if (options.host_if.empty() || options.switch_if.empty())
        fail(std::string("--host and --switch are needed\n") + usage);
    return options;
}

// A packet socket on one interface, every frame it receives (promiscuous),
// none of those the machine sends on it, with virtio-net headers.
Fd open_port(const std::string &name)
{
    const unsigned index = if_nametoindex(name.c_str());
    if (index == 0)
        fail(errno_text("interface " + name));
    Fd fd(::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)));
    if (fd.get() < 0)
        fail(errno_text("packet socket on " + name + " (needs root or CAP_NET_RAW)"));
    const int on = 1;
    if (setsockopt(fd.get(), SOL_PACKET, PACKET_VNET_HDR, &on, sizeof on) != 0)
        fail(errno_text("PACKET_VNET_HDR on " + name));
    // Frames sent on the interface (by this process) are not read back.
    // Older kernels lack the option; the packet type filters them then.
    (void)setsockopt(fd.get(), SOL_PACKET, PACKET_IGNORE_OUTGOING, &on, sizeof on);
    sockaddr_ll address{};
    address.sll_family = AF_PACKET;
    address.sll_protocol = htons(ETH_P_ALL);
    address.sll_ifindex = static_cast<int>(index);
    if (::bind(fd.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
        fail(errno_text("bind to " + name));
    packet_mreq promiscuous{};
    promiscuous.mr_ifindex = static_cast<int>(index);
    promiscuous.mr_type = PACKET_MR_PROMISC;
    if (setsockopt(fd.get(), SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promiscuous, sizeof promiscuous) !=
        0)
        fail(errno_text("promiscuous mode on " + name));
    return fd;
}

class Link
{
  public:
    explicit Link(const Options &options)
        : options_(options), host_(open_port(options.host_if)),
          switch_(open_port(options.switch_if)),
          random_(options.seed ? *options.seed : std::random_device{}()), frame_(frame_capacity)
    {
    }

    [[noreturn]] void run()
    {
        std::printf("ready\n");
        std::fflush(stdout);
        for (;;) {
            pollfd ports[2] = {{host_.get(), POLLIN, 0}, {switch_.get(), POLLIN, 0}};
            const timespec timeout = until_next();
            const int ready = ::ppoll(ports, 2, waiting_.empty() ? nullptr : &timeout, nullptr);
            if (ready < 0 && errno != EINTR)
                fail(errno_text("poll"));
            if (ready > 0) {
                check_port(ports[0], options_.host_if);
                check_port(ports[1], options_.switch_if);
                if (ports[0].revents & POLLIN)
                    from_host();
                if (ports[1].revents & POLLIN)
                    from_switch();
            }
            send_due();
        }
    }

  private:
    static void check_port(const pollfd &port, const std::string &name)
    {
        if (port.revents & (POLLERR | POLLHUP | POLLNVAL))
            fail("interface " + name + " is gone");
    }

    timespec until_next() const
    {
        if (waiting_.empty())
            return {};
        const auto left = waiting_.front().due - Clock::now();
        const auto ns = std::max<std::int64_t>(
            0, std::chrono::duration_cast<std::chrono::nanoseconds>(left).count());
        return {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    }

    // One frame from the socket, or none when there is no more just now.
    std::optional<std::size_t> receive(int fd, const std::string &name)
    {
        sockaddr_ll from{};
        socklen_t from_size = sizeof from;
        const ssize_t got = ::recvfrom(fd, frame_.data(), frame_.size(), MSG_DONTWAIT | MSG_TRUNC,
                                       reinterpret_cast<sockaddr *>(&from), &from_size);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return std::nullopt;
            if (errno == ENETDOWN)
                return std::nullopt; // the link is down: frames come again when it is up
            fail(errno_text("receive on " + name));
        }
        if (static_cast<std::size_t>(got) > frame_.size()) {
            std::fprintf(stderr,
                         "meridian-linkem: a frame of %zd bytes on %s, more than %zu: dropped\n",
                         got, name.c_str(), frame_.size());
            return 0;
        }
        if (from.sll_pkttype == PACKET_OUTGOING)
            return 0;
        return static_cast<std::size_t>(got);
    }

    void send(int fd, const std::uint8_t *bytes, std::size_t size, const std::string &name)
    {
        if (::send(fd, bytes, size, 0) >= 0)
            return;
        // A link down or a queue full loses the frame, as a wire would.
        if (errno == ENETDOWN || errno == ENOBUFS || errno == EAGAIN || errno == ENXIO)
            return;
        fail(errno_text("send on " + name));
    }

    bool dropped()
    {
        if (options_.loss_per_million == 0)
            return false;
        return std::uniform_int_distribution<unsigned>(0, 999999)(random_) <
               options_.loss_per_million;
    }

    void from_host()
    {
        // At most a bounded batch per wake, so that the other direction and
        // the due frames are served in between.
        for (int batch = 0; batch < 256; ++batch) {
            const auto size = receive(host_.get(), options_.host_if);
            if (!size)
                return;
            if (*size == 0 || dropped())
                continue;
            if (options_.delay.count() == 0) {
                send(switch_.get(), frame_.data(), *size, options_.switch_if);
            } else if (waiting_.size() < options_.limit) {
                waiting_.push_back(
                    {Clock::now() + options_.delay,
                     {frame_.begin(), frame_.begin() + static_cast<std::ptrdiff_t>(*size)}});
            }
        }
    }

    void from_switch()
    {
        for (int batch = 0; batch < 256; ++batch) {
            const auto size = receive(switch_.get(), options_.switch_if);
            if (!size)
                return;
            if (*size != 0)
                send(host_.get(), frame_.data(), *size, options_.host_if);
        }
    }

    // The frames whose delay is over, in the order they came (one delay for
    // all keeps the queue in order of due time).
    void send_due()
    {
        const auto now = Clock::now();
        while (!waiting_.empty() && waiting_.front().due <= now) {
            const auto &frame = waiting_.front().bytes;
            send(switch_.get(), frame.data(), frame.size(), options_.switch_if);
            waiting_.pop_front();
        }
    }

    Options options_;
    Fd host_;
    Fd switch_;
    std::mt19937_64 random_;
    std::vector<std::uint8_t> frame_;
    std::deque<Waiting> waiting_;
};

} // namespace

int main(int argc, char **argv)
{
    const Options options = parse_options(argc, argv);
    Link link(options);
    link.run();
}
