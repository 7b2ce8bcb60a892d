// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's port ledger: one file per host that the jobs of a user on that
// host share, so that a static port is handed to one job at a time however
// many jobs run at once (README.md, "Port ledger").  Each job's pnet_tcp
// claims ports in it before the job's fence, shrinks its claim to the ports
// assigned after allocate, and gives them back when its last process on the
// host leaves; an entry whose processes are all gone is reclaimed by the
// next job that opens the ledger.
//
// The file, written whole (a temporary file renamed over it) while
// FILE.lock is locked (flock):
//
//   # comments and blank lines
//   meridian-port-ledger 1
//   job NSPACE host=HOST boot=BOOT_ID expect=N since=SECONDS
//       [tcp=PORTS] [udp=PORTS] [procs=PID:START,...] [left=PID:START,...]
//
// one line per job and host (shown on two here), NSPACE, HOST and BOOT_ID
// with bytes outside '!'..'~', and '%', written %XX: BOOT_ID the host's
// /proc/sys/kernel/random/boot_id ("-": unknown); expect the job's
// processes on the host; since the host's CLOCK_BOOTTIME in seconds when
// the entry last changed; PORTS as PMIx shows an allocation
// ("32000-32003,32010"); procs the processes still here and left those that
// have left (meridian_finalize), each PID:START with START field 22 of
// /proc/PID/stat (0: unknown), which tells a reused pid apart.
//
// Nothing here reads a parameter or the datastore (pnet_tcp_claim.hpp does):
// the unit tests compile this file on its own.  Not thread-safe; the
// file's lock orders processes, pnet_tcp_claim.cc orders its threads.
#ifndef MERIDIAN_COMPONENTS_PNET_TCP_LEDGER_HPP
#define MERIDIAN_COMPONENTS_PNET_TCP_LEDGER_HPP

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/port_ranges.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_tcp::ledger
{

// The line that starts every ledger (after comments); another version is
// refused, never rewritten.
inline constexpr std::string_view header_line = "meridian-port-ledger 1";

// An entry of the host whose processes are all gone, when fewer than
// `expect` ever joined it, is kept this long after its last change: a
// process of the job may still be on its way from the fence to joining it.
inline constexpr std::uint64_t grace_seconds = 30;

// A process: its pid and start time (clock ticks after boot; 0: unknown).
struct Process {
    std::int32_t pid = 0;
    std::uint64_t start = 0;
    bool operator==(const Process &) const = default;
};

// Ports per protocol (fabric::Protocol as index), ascending.
using PortsByProtocol = std::array<std::vector<std::uint16_t>, 2>;

// One job's ports on one host.
struct Entry {
    std::string nspace;
    std::string host;
    std::string boot = "-";
    std::uint32_t expect = 1;
    std::uint64_t since = 0;
    PortsByProtocol ports;
    std::vector<Process> procs; // still here
    std::vector<Process> left;  // have left
    bool operator==(const Entry &) const = default;
};

// ---------------------------------------------------------------- the text

// The entries of a ledger's text.  An empty text, or one of comments and
// blank lines only, is an empty ledger.  Errors (MERIDIAN_ERR_BAD_PARAM)
// read "WHERE:LINE:COL: expected ..., found ..." (WHERE: the file's path).
Result<std::vector<Entry>> parse(std::string_view text, std::string_view where);
// The text of the entries (a comment, the header line, one line per entry):
// parse(format(x)) == x.
std::string format(std::span<const Entry> entries);

// ---------------------------------------------------------------- the host

// This host as its entries name it, and its clock.
struct Here {
    std::string host;
    std::string boot = "-";
    std::uint64_t now = 0; // CLOCK_BOOTTIME, seconds
};
Here here();

// This process (pid and start time).
Process this_process();
// Another process of this host by its pid, with its start time (0 when
// /proc does not say).
Process process_of(std::int32_t pid);
// Whether a process still runs: /proc/PID/stat exists, is not a zombie and,
// when START is known, has that start time.  Where /proc does not say
// (hidepid), kill(PID, 0) does.
bool is_running(const Process &process);
using Running = std::function<bool(const Process &)>;

// Ports that sockets of this network namespace hold, per protocol (a 65536
// entry map each): any tcp socket with the port as its local port except in
// TIME_WAIT, any udp socket.  `unreadable` lists the /proc/net files that
// could not be read ("/proc/net/tcp6: No such file or directory").
struct HeldPorts {
    std::array<std::vector<bool>, 2> held{std::vector<bool>(65536), std::vector<bool>(65536)};
    std::vector<std::string> unreadable;
};
HeldPorts held_ports();
// One /proc/net/{tcp,tcp6,udp,udp6} text into `held` (header line skipped;
// lines that do not parse are skipped).
void add_held_ports(std::string_view proc_net_text, bool tcp, std::vector<bool> &held);

// ---------------------------------------------------------------- the rules

// Drop the entries of this host that are over: from another boot; every
// expected process has left; or no recorded process runs and either all
// `expect` processes had joined or grace_seconds have passed since the
// entry changed.  Entries of other hosts are left alone.  Returns how many
// were dropped.
std::size_t reclaim(std::vector<Entry> &entries, const Here &here, const Running &running);

// What a job asks the ledger for on this host.
struct ClaimRequest {
    std::string nspace;
    std::uint32_t expect = 1;                // its processes on the host
    std::array<std::uint64_t, 2> need = {};  // ports per pool, per protocol
    std::vector<fabric::PortPoolSpec> pools; // the host's pools
};

// The claim: for each pool of a protocol the job needs (pools of one
// protocol and subnet being one pool), the lowest `need` ports that no
// other job of this host holds, that `held` does not list, and that an
// earlier pool of this claim did not take.  The job's entry (made, or
// replaced when it exists) holds them, with `me` among its processes.
// Returns the pools as claimed (a pool that got no port is left out).
std::vector<fabric::PortPoolSpec> claim(std::vector<Entry> &entries, const Here &here,
                                        const Process &me, const ClaimRequest &request,
                                        const std::array<std::vector<bool>, 2> &held);
// After allocate: the job's entry holds exactly `assigned`, with `me` among
// its processes (the entry is made when it is missing).
void hold(std::vector<Entry> &entries, const Here &here, const Process &me, std::string_view nspace,
          std::uint32_t expect, const PortsByProtocol &assigned);
// `me` leaves the job's entry, whether it joined it or not (a process that
// failed before setup_local_network is done with the job's ports too); the
// entry goes when every expected process has left.  Does nothing when the
// entry is gone or `me` has left it already.
void leave(std::vector<Entry> &entries, const Here &here, const Process &me,
           std::string_view nspace);
// `me`, which held the job's entry for processes that go on after it (a
// node's leader for the node's other processes), leaves it to `heirs`: they
// become its processes, and the entry expects `me` and them, so it goes
// when none of them runs any more.  Like leave() when there are no heirs.
void hand_over(std::vector<Entry> &entries, const Here &here, const Process &me,
               std::string_view nspace, std::span<const Process> heirs);

// ---------------------------------------------------------------- the file

// Run `change` on the ledger at `path` while FILE.lock is locked: read
// (a missing file is empty), parse, reclaim, change, and write the entries
// back (a temporary FILE.tmp renamed over FILE) when the text differs.  The
// lock is waited for at most `lock_wait`.  The file's directory is made
// (mode 0700) when missing.  A file that does not parse is left as it is
// and the change is not made.  Errors name the file and say why.
Status update(const std::string &path, const Running &running,
              const std::function<void(std::vector<Entry> &, const Here &)> &change,
              std::chrono::milliseconds lock_wait = std::chrono::seconds(10));

// A directory that only this user may write: it exists (made with mode 0700
// when missing), is no symbolic link, belongs to this user and is neither
// group- nor world-writable.  For a ledger in a directory everybody shares
// (/tmp), so that nobody else can plant the file.
Status check_private_directory(const std::string &directory);

} // namespace meridian::pnet_tcp::ledger

#endif
