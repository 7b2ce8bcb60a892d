// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/util/read_file.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace meridian::util
{
namespace
{

// Closed on every path out.
class Descriptor
{
  public:
    explicit Descriptor(int fd) : fd_(fd) {}
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;
    ~Descriptor()
    {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    int get() const { return fd_; }

  private:
    int fd_;
};

Error system_error(int error)
{
    return make_error(error == ENOENT ? MERIDIAN_ERR_NOT_FOUND : MERIDIAN_ERR_IO,
                      std::strerror(error));
}

} // namespace

Result<std::string> read_file(const std::string &path, std::size_t limit, const char *what)
{
    const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.get() < 0) {
        return system_error(errno);
    }
    struct stat info {
    };
    if (::fstat(file.get(), &info) != 0) {
        return system_error(errno);
    }
    // Linux's read() says EISDIR, other systems may read a directory.
    if (S_ISDIR(info.st_mode)) {
        return system_error(EISDIR);
    }
    const auto too_large = [&] {
        return make_error(MERIDIAN_ERR_IO, std::string(std::strerror(EFBIG)) + " (a " + what +
                                               " is at most " + std::to_string(limit >> 20) +
                                               " MiB)");
    };
    if (S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > limit) {
        return too_large();
    }
    std::string text;
    if (S_ISREG(info.st_mode)) {
        text.reserve(static_cast<std::size_t>(info.st_size));
    }
    char buffer[65536];
    while (true) {
        const ssize_t got = ::read(file.get(), buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return system_error(errno);
        }
        if (got == 0) {
            return text;
        }
        if (static_cast<std::size_t>(got) > limit - text.size()) {
            return too_large();
        }
        text.append(buffer, static_cast<std::size_t>(got));
    }
}

} // namespace meridian::util
