// SPDX-License-Identifier: BSD-3-Clause
#include "config.h"

#include "components/msg_ofi/msg_ofi_libfabric.hpp"

#include <dlfcn.h>
#include <rdma/fi_errno.h>

#include <atomic>
#include <mutex>

namespace meridian::msg_ofi::libfabric
{

namespace
{

#ifndef MERIDIAN_LIBFABRIC_SONAME
#define MERIDIAN_LIBFABRIC_SONAME "libfabric.so.1"
#endif

// A symbol version configure could not read: the library's default.
#ifndef MERIDIAN_FI_GETINFO_VERSION
#define MERIDIAN_FI_GETINFO_VERSION nullptr
#endif
#ifndef MERIDIAN_FI_FREEINFO_VERSION
#define MERIDIAN_FI_FREEINFO_VERSION nullptr
#endif
#ifndef MERIDIAN_FI_DUPINFO_VERSION
#define MERIDIAN_FI_DUPINFO_VERSION nullptr
#endif
#ifndef MERIDIAN_FI_FABRIC_VERSION
#define MERIDIAN_FI_FABRIC_VERSION nullptr
#endif
#ifndef MERIDIAN_FI_STRERROR_VERSION
#define MERIDIAN_FI_STRERROR_VERSION nullptr
#endif

struct Library {
    decltype(&::fi_getinfo) getinfo = nullptr;
    decltype(&::fi_freeinfo) freeinfo = nullptr;
    decltype(&::fi_dupinfo) dupinfo = nullptr;
    decltype(&::fi_fabric) fabric = nullptr;
    decltype(&::fi_strerror) strerror = nullptr;
    Status status = success();
};

template <typename F>
bool bind(void *handle, const char *name, const char *version, F &slot, std::string &missing)
{
    void *symbol = version != nullptr ? ::dlvsym(handle, name, version) : ::dlsym(handle, name);
    if (symbol == nullptr) {
        missing += std::string(missing.empty() ? "" : ", ") + name +
                   (version != nullptr ? std::string("@") + version : std::string());
        return false;
    }
    slot = reinterpret_cast<F>(symbol);
    return true;
}

Library open_library()
{
    Library lib;
    // RTLD_NODELETE: libfabric stays when the component's DSO is closed.
    void *handle = ::dlopen(MERIDIAN_LIBFABRIC_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
        const char *why = ::dlerror();
        lib.status = make_error(
            MERIDIAN_ERR_NOT_AVAILABLE,
            std::string("msg ofi: cannot load libfabric (") + MERIDIAN_LIBFABRIC_SONAME +
                "), which this job needs (the ofi transport carries some of its peers): " +
                (why != nullptr ? why : "unknown error") + " (Debian: apt-get install libfabric1)");
        return lib;
    }
    std::string missing;
    bool all = bind(handle, "fi_getinfo", MERIDIAN_FI_GETINFO_VERSION, lib.getinfo, missing);
    all = bind(handle, "fi_freeinfo", MERIDIAN_FI_FREEINFO_VERSION, lib.freeinfo, missing) && all;
    all = bind(handle, "fi_dupinfo", MERIDIAN_FI_DUPINFO_VERSION, lib.dupinfo, missing) && all;
    all = bind(handle, "fi_fabric", MERIDIAN_FI_FABRIC_VERSION, lib.fabric, missing) && all;
    all = bind(handle, "fi_strerror", MERIDIAN_FI_STRERROR_VERSION, lib.strerror, missing) && all;
    if (!all) {
        lib = Library{};
        lib.status =
            make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                       std::string("msg ofi: ") + MERIDIAN_LIBFABRIC_SONAME + " lacks " + missing +
                           " (an older libfabric than the one this was built with)");
        ::dlclose(handle);
    }
    return lib;
}

std::once_flag opened;
std::atomic<const Library *> library{nullptr};

const Library &the_library()
{
    std::call_once(opened, [] {
        static const Library lib = open_library();
        library.store(&lib, std::memory_order_release);
    });
    return *library.load(std::memory_order_acquire);
}

// The library once opened, else nullptr (without opening it).
const Library *opened_library()
{
    const Library *lib = library.load(std::memory_order_acquire);
    return lib != nullptr && lib->getinfo != nullptr ? lib : nullptr;
}

} // namespace

Status load()
{
    return the_library().status;
}

int getinfo(std::uint32_t version, const char *node, const char *service, std::uint64_t flags,
            const fi_info *hints, fi_info **info)
{
    const Library &lib = the_library();
    if (lib.getinfo == nullptr) {
        *info = nullptr;
        return -FI_ENOSYS;
    }
    return lib.getinfo(version, node, service, flags, hints, info);
}

void freeinfo(fi_info *info)
{
    // An fi_info can only come from an opened library.
    if (const Library *lib = opened_library(); info != nullptr && lib != nullptr) {
        lib->freeinfo(info);
    }
}

fi_info *dupinfo(const fi_info *info)
{
    const Library &lib = the_library();
    return lib.dupinfo != nullptr ? lib.dupinfo(info) : nullptr;
}

int fabric(fi_fabric_attr *attr, fid_fabric **fabric, void *context)
{
    const Library &lib = the_library();
    return lib.fabric != nullptr ? lib.fabric(attr, fabric, context) : -FI_ENOSYS;
}

std::string strerror(int errnum)
{
    if (const Library *lib = opened_library()) {
        return lib->strerror(errnum);
    }
    return "libfabric error " + std::to_string(errnum) + " (" + MERIDIAN_LIBFABRIC_SONAME +
           " is not loaded)";
}

} // namespace meridian::msg_ofi::libfabric
