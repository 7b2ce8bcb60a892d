// SPDX-License-Identifier: BSD-3-Clause
// Between the collectives' engine (qmp_coll.cc) and the public calls
// (qmp_coll_api.cc).  Every function is collective over the communicator's
// members; `call` names the public call in error messages.
#ifndef MERIDIAN_MCA_MSG_BASE_QMP_COLL_HPP
#define MERIDIAN_MCA_MSG_BASE_QMP_COLL_HPP

#include <cstddef>

#include "mca/qmp/qmp.h"
#include "mca/qmp/qmp_internal.hpp"

namespace meridian::qmp
{

// acc = op(lower ranks' part, higher ranks' part), elementwise over n
// bytes; acc is this process's running value ("mine"), theirs the part a
// partner sent (the function may overwrite it).
struct Combine {
    void (*fn)(std::byte *acc, std::byte *theirs, std::size_t n, bool mine_lower,
               QMP_binary_func user) = nullptr;
    QMP_binary_func user = nullptr; // for combine_user
};

// Bytewise OR (allgather's slots).
void combine_or(std::byte *acc, std::byte *theirs, std::size_t n, bool mine_lower,
                QMP_binary_func user);

// In place over n bytes of data: the same bits on every member.
QMP_status_t allreduce(const char *call, QMP_comm_t comm, void *data, std::size_t n,
                       const Combine &combine);
// From communicator rank 0's data to everyone's.
QMP_status_t broadcast(const char *call, QMP_comm_t comm, void *data, std::size_t n);
// timeout_ms < 0: the transport's limit; else QMP_TIMEOUT after it (the
// next collective on the communicator finishes this barrier first).
QMP_status_t barrier_call(const char *call, QMP_comm_t comm, int timeout_ms);
// Block r of send goes to rank r, block r of recv comes from rank r.
QMP_status_t alltoall(const char *call, QMP_comm_t comm, char *recv, const char *send,
                      std::size_t count);

} // namespace meridian::qmp

#endif
