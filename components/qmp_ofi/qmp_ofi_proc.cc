#include "components/qmp_ofi/qmp_ofi_proc.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace meridian::msg_ofi::proc
{

namespace
{

// /proc/PID/stat after the command (which may hold spaces and parentheses):
// "S ppid ..." -- the state, then fields 4 onwards.
std::optional<std::string> stat_fields(pid_t pid)
{
    const std::string path = "/proc/" + std::to_string(pid) + "/stat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::nullopt;
    }
    char buf[1024];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) {
        return std::nullopt;
    }
    const std::string text(buf, static_cast<std::size_t>(n));
    const auto close_paren = text.rfind(')');
    if (close_paren == std::string::npos || close_paren + 2 >= text.size()) {
        return std::nullopt;
    }
    return text.substr(close_paren + 2);
}

// Field `index` (1-based, as proc(5) numbers them) from the text after the
// command, which starts at field 3.
std::string field(const std::string &fields, int index)
{
    int at = 3;
    std::size_t pos = 0;
    while (at < index && pos != std::string::npos) {
        pos = fields.find(' ', pos);
        if (pos != std::string::npos) {
            ++pos;
        }
        ++at;
    }
    if (pos == std::string::npos) {
        return {};
    }
    return fields.substr(pos, fields.find(' ', pos) - pos);
}

} // namespace

std::uint64_t start_time(pid_t pid)
{
    const auto fields = stat_fields(pid);
    if (!fields) {
        return 0;
    }
    return std::strtoull(field(*fields, 22).c_str(), nullptr, 10);
}

std::optional<std::string> gone(pid_t pid, std::uint64_t started)
{
    if (pid <= 0) {
        return std::nullopt;
    }
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
        return "exited";
    }
    const auto fields = stat_fields(pid);
    if (!fields) {
        // Raced with its exit, or /proc is not ours to read: trust kill().
        return ::kill(pid, 0) != 0 && errno == ESRCH ? std::optional<std::string>("exited")
                                                     : std::nullopt;
    }
    const char state = fields->empty() ? '?' : (*fields)[0];
    if (state == 'Z' || state == 'X') {
        return "was killed or exited (it is a zombie)";
    }
    if (started != 0) {
        const std::uint64_t now = std::strtoull(field(*fields, 22).c_str(), nullptr, 10);
        if (now != 0 && now != started) {
            return "exited (its pid now belongs to another process)";
        }
    }
    return std::nullopt;
}

int read_from(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote, std::size_t n)
{
    // Both lists are cut into calls of at most IOV_MAX blocks each, the
    // first block of each call possibly a remainder of a block.
    constexpr std::size_t max_blocks = IOV_MAX;
    std::vector<iovec> lv;
    std::vector<iovec> rv;
    std::size_t li = 0, lo = 0, ri = 0, ro = 0; // block index and offset per side
    while (n > 0) {
        lv.clear();
        rv.clear();
        std::size_t lbytes = 0, rbytes = 0;
        for (std::size_t i = li, off = lo; i < local.size() && lv.size() < max_blocks && lbytes < n;
             ++i, off = 0) {
            const std::size_t len = std::min(local[i].iov_len - off, n - lbytes);
            if (len > 0) {
                lv.push_back({static_cast<char *>(local[i].iov_base) + off, len});
                lbytes += len;
            }
        }
        for (std::size_t i = ri, off = ro;
             i < remote.size() && rv.size() < max_blocks && rbytes < n; ++i, off = 0) {
            const std::size_t len = std::min(remote[i].iov_len - off, n - rbytes);
            if (len > 0) {
                rv.push_back({static_cast<char *>(remote[i].iov_base) + off, len});
                rbytes += len;
            }
        }
        // Trim both to the bytes both sides cover in this call.
        std::size_t want = std::min(lbytes, rbytes);
        for (auto *v : {&lv, &rv}) {
            std::size_t left = want;
            std::size_t keep = 0;
            while (keep < v->size() && left > 0) {
                if ((*v)[keep].iov_len > left) {
                    (*v)[keep].iov_len = left;
                }
                left -= (*v)[keep].iov_len;
                ++keep;
            }
            v->resize(keep);
        }
        const ssize_t got = ::process_vm_readv(pid, lv.data(), lv.size(), rv.data(), rv.size(), 0);
        if (got < 0) {
            return errno;
        }
        if (got == 0) {
            return EFAULT;
        }
        auto advance = [](std::span<const iovec> list, std::size_t &index, std::size_t &offset,
                          std::size_t bytes) {
            while (bytes > 0) {
                const std::size_t take = std::min(bytes, list[index].iov_len - offset);
                bytes -= take;
                offset += take;
                if (offset == list[index].iov_len) {
                    ++index;
                    offset = 0;
                }
            }
        };
        const auto moved = static_cast<std::size_t>(got);
        advance(local, li, lo, moved);
        advance(remote, ri, ro, moved);
        n -= moved;
    }
    return 0;
}

} // namespace meridian::msg_ofi::proc
