// SPDX-License-Identifier: BSD-3-Clause
// Processes of this node: whether a peer still lives (its pid, published
// through the modex: the base watches them) and single-copy transfers from
// its memory (CMA: the sm transport).  Compiled into libmeridian and into
// msg_sm, hidden in each.
#ifndef MERIDIAN_MCA_MSG_BASE_MSG_PROC_HPP
#define MERIDIAN_MCA_MSG_BASE_MSG_PROC_HPP

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace meridian::msg::proc
{

// What identifies a process beyond its pid (which the kernel reuses): its
// start time in clock ticks since boot, from /proc/PID/stat; 0 when
// unknown.
std::uint64_t start_time(pid_t pid);

// Why the process is gone ("exited", "is a zombie", "was replaced by
// another process"), or nothing while it runs.  A zombie counts as gone:
// the launcher may not have reaped it yet.
std::optional<std::string> gone(pid_t pid, std::uint64_t start_time);

// Copy n bytes between the blocks `local` of this process and `remote` of
// process pid, both seen as one byte stream from byte `offset` on: from
// remote to local (process_vm_readv), or from local to remote
// (process_vm_writev) when `write`.  In calls of at most IOV_MAX blocks per
// side.  Returns 0 or the errno of the failure.
int transfer(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote,
             std::size_t offset, std::size_t n, bool write);
inline int read_from(pid_t pid, std::span<const iovec> local, std::span<const iovec> remote,
                     std::size_t n)
{
    return transfer(pid, local, remote, 0, n, false);
}

} // namespace meridian::msg::proc

#endif
