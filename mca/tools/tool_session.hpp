// SPDX-License-Identifier: BSD-3-Clause
// What every Meridian tool's main shares: Meridian's life from a successful
// meridian_init to the end of main, and writing the output in one piece.
#ifndef MERIDIAN_TOOLS_TOOL_SESSION_HPP
#define MERIDIAN_TOOLS_TOOL_SESSION_HPP

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::tools
{

// meridian_init now, meridian_finalize when main leaves (if init succeeded):
// closing the frameworks forgets what they computed and unloads components.
class MeridianSession
{
  public:
    MeridianSession() : status_(meridian_init(nullptr, nullptr)) {}
    ~MeridianSession()
    {
        if (ok()) {
            meridian_finalize();
        }
    }
    MeridianSession(const MeridianSession &) = delete;
    MeridianSession &operator=(const MeridianSession &) = delete;
    bool ok() const { return status_ == MERIDIAN_SUCCESS; }

  private:
    int status_;
};

// One write for the whole output; a failure (a closed pipe, a full disk) is
// reported and returns false.
inline bool write_out(const std::string &text)
{
    const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    if (!written || std::fflush(stdout) != 0) {
        report_error(std::string("cannot write the output: ") + std::strerror(errno));
        return false;
    }
    return true;
}

} // namespace meridian::tools

#endif
