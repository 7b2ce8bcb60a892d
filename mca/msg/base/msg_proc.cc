// SPDX-License-Identifier: BSD-3-Clause
#include "mca/msg/base/msg_proc.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace meridian::msg::proc
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

namespace
{

// A position in a block list, as block index and offset in the block.
struct Position {
    std::size_t index = 0;
    std::size_t offset = 0;

    void advance(std::span<const iovec> list, std::size_t bytes)
    {
        while (index < list.size() && (bytes > 0 || offset == list[index].iov_len)) {
            if (offset == list[index].iov_len) {
                ++index;
                offset = 0;
                continue;
            }
            const std::size_t take = std::min(bytes, list[index].iov_len - offset);
            bytes -= take;
            offset += take;
        }
    }
};

// Up to IOV_MAX blocks of `list` from `at`, at most `limit` bytes.
std::size_t collect(std::span<const iovec> list, Position at, std::size_t limit,
                    std::vector<iovec> &out)
{
    out.clear();
    std::size_t bytes = 0;
    for (std::size_t i = at.index, off = at.offset;
         i < list.size() && out.size() < IOV_MAX && bytes < limit; ++i, off = 0) {
        const std::size_t len = std::min(list[i].iov_len - off, limit - bytes);
        if (len > 0) {
            out.push_back({static_cast<char *>(list[i].iov_base) + off, len});
            bytes += len;
        }
    }
    return bytes;
}

// Cut a collected list to its first `bytes` bytes.
void trim(std::vector<iovec> &list, std::size_t bytes)
{
    std::size_t keep = 0;
    while (keep < list.size() && bytes > 0) {
        list[keep].iov_len = std::min(list[keep].iov_len, bytes);
        bytes -= list[keep].iov_len;
        ++keep;
    }
    list.resize(keep);
}

} // namespace

int transfer(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote,
             std::size_t offset, std::size_t n, bool write)
{
    Position l, r;
    l.advance(local, offset);
    r.advance(remote, offset);
    std::vector<iovec> lv;
    std::vector<iovec> rv;
    while (n > 0) {
        const std::size_t want = std::min(collect(local, l, n, lv), collect(remote, r, n, rv));
        if (want == 0) {
            return EFAULT; // the lists are shorter than n
        }
        trim(lv, want);
        trim(rv, want);
        const ssize_t moved =
            write ? ::process_vm_writev(pid, lv.data(), lv.size(), rv.data(), rv.size(), 0)
                  : ::process_vm_readv(pid, lv.data(), lv.size(), rv.data(), rv.size(), 0);
        if (moved < 0) {
            return errno;
        }
        if (moved == 0) {
            return EFAULT;
        }
        l.advance(local, static_cast<std::size_t>(moved));
        r.advance(remote, static_cast<std::size_t>(moved));
        n -= static_cast<std::size_t>(moved);
    }
    return 0;
}

} // namespace meridian::msg::proc
