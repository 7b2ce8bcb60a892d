// SPDX-License-Identifier: BSD-3-Clause
// One message per job: what many processes of a job say is printed once per
// node, with their ranks; not installed.
//
// A process that a PMIx launcher started (PMIX_RANK in its environment) names
// its rank and node in every message ("meridian: warning: [rank 3 on
// node2] ...").  With mca_base_message_aggregate (the default), the node's
// lowest rank -- its printer -- prints each error, warning and notice once for
// the node: "[ranks 0-9 on node2]".  The others hand theirs to it as PMIx
// events within the node (what every PMIx server delivers) and the printer
// says which ranks it printed for.  It waits mca_base_message_window from a
// message's first arrival for the node's other copies, or until every local
// process has given it; a process that said the same more than once is
// counted ("(said 3 times)").  Nothing is lost: a message the printer has not
// confirmed within the window and a second is printed by its own process, and
// so is everything left when the printer finalizes (it tells the others), the
// process finalizes or exits, or the launcher is gone.  Verbose output is
// never held: it is each process's own.
//
// Messages said before the datastore opens (parameters are read first) are
// held; meridian_init's end hands them on, opening the datastore when there is
// something to say, so a quiet start pays nothing.
#ifndef MERIDIAN_RUNTIME_JOB_MESSAGES_HPP
#define MERIDIAN_RUNTIME_JOB_MESSAGES_HPP

#include <cstdint>
#include <string>
#include <vector>

#include <meridian/opal/runtime/datastore.hpp>

namespace meridian::job_messages
{

// Events within a node (PMIx user codes, beside coord's -3101).
constexpr int code_said = -3111;    // a process's message: severity, text, seq
constexpr int code_printed = -3112; // the printer printed it: severity, text, copies
constexpr int code_ready = -3113;   // the printer listens: send again what it has not confirmed
constexpr int code_closing = -3114; // the printer is done: print your own
inline constexpr const char *key_severity = "meridian.message.severity";
inline constexpr const char *key_text = "meridian.message.text";
// The how-manieth message of its process (int64).
inline constexpr const char *key_seq = "meridian.message.seq";
// The copies printed: rank, seq, rank, seq, ... (uint32 array).
inline constexpr const char *key_copies = "meridian.message.copies";

// meridian_init's first step: a process of a PMIx launcher's job names its
// rank in its messages and holds them until start-up ends.
void hold();

// The datastore opened (datastore::store()): the held messages go to the
// node's printer, or out at once (a process alone, one process on its node,
// mca_base_message_aggregate=0).  Later messages go the same way.
void attach(datastore::Store &store);

// meridian_init's end.  Held messages are handed on: a process with
// something to say opens the datastore to do so.  After a failed start-up
// (failed), it then waits for its node's printer, as release() does.
void end_of_start(bool failed);

// Before the datastore goes (meridian_finalize, a failed start-up, exit): the
// printer prints what it gathered (waiting out the window for the others'
// copies); the others wait for it to confirm theirs, at most the window and a
// second, and print what it did not.  Messages print directly afterwards.
void release();

// For a process about to end abruptly (QMP_abort, its launcher gone), from
// any thread: what it holds, sent or gathered is printed at once (what it
// gathered with the ranks so far), and its messages print directly from now.
void print_now();

// "0-3,5,7-9"
std::string format_ranks(std::vector<std::uint32_t> ranks);

} // namespace meridian::job_messages

#endif
