// SPDX-License-Identifier: BSD-3-Clause
// libfabric, loaded when the transport first needs it.
//
// The component's DSO is not linked with libfabric: loading libfabric runs
// the constructors of every library its providers pull in (psm probes for
// its hardware and sleeps, verbs and efa scan devices), ~170 ms on a
// machine without that hardware.  Listing components, reading their
// parameters and a job whose peers all share a node must not pay it.
//
// So the few functions libfabric exports are called through here; the rest
// of its API is inline and goes through the objects these return.  The
// library is opened by soname the first time one is called, and the
// symbol versions are the ones configure saw the linker bind (the ABI of
// fi_info the headers describe), so the result is what linking would
// have given.  Once opened it stays for the life of the process: it and
// the libraries it loads cannot be unloaded and loaded again cleanly.
#ifndef MERIDIAN_MSG_OFI_LIBFABRIC_HPP
#define MERIDIAN_MSG_OFI_LIBFABRIC_HPP

#include <rdma/fabric.h>

#include <cstdint>
#include <string>

#include <meridian/opal/util/result.hpp>

namespace meridian::msg_ofi::libfabric
{

// Opens libfabric if not yet done; the error names the library and why
// (not installed, a symbol missing).  getinfo, dupinfo and fabric open it
// too; freeinfo and strerror never do.
Status load();

// As fi_getinfo, fi_freeinfo, fi_dupinfo and fi_fabric; when libfabric
// cannot be opened: -FI_ENOSYS, nothing, nullptr and -FI_ENOSYS.
int getinfo(std::uint32_t version, const char *node, const char *service, std::uint64_t flags,
            const fi_info *hints, fi_info **info);
void freeinfo(fi_info *info);
fi_info *dupinfo(const fi_info *info);
// fi_allocinfo.
inline fi_info *allocinfo()
{
    return dupinfo(nullptr);
}
int fabric(fi_fabric_attr *attr, fid_fabric **fabric, void *context);
// As fi_strerror (errnum >= 0); a text of its own when libfabric is not open.
std::string strerror(int errnum);

} // namespace meridian::msg_ofi::libfabric

#endif
