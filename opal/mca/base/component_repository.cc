// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/mca/base/component_repository.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <ltdl.h>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "opal/util/no_destructor.hpp"
#include <meridian/opal/util/strings.hpp>

namespace meridian::mca
{

namespace
{

void ensure_ltdl()
{
    static const int status = lt_dlinit();
    (void)status;
}

std::string version_text(const mca_base_version_t &v)
{
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." +
           std::to_string(v.release);
}

// Bounded copy of a fixed-size name field that might lack its NUL.
std::string name_field(const char (&field)[MCA_BASE_MAX_NAME_LEN + 1])
{
    return std::string(field, strnlen(field, sizeof field));
}

// Explain why the dynamic linker refused a file, from its message.
std::string explain_dlerror(const std::string &path, std::string message)
{
    const std::string own_prefix = path + ": ";
    if (util::starts_with(message, own_prefix)) {
        message.erase(0, own_prefix.size());
    }
    if (message.find("cannot open shared object file") != std::string::npos) {
        const std::string library = message.substr(0, message.find(':'));
        return "missing dependency: " + library + " was not found (" + message + ")";
    }
    if (const auto at = message.find("undefined symbol: "); at != std::string::npos) {
        std::string symbol = message.substr(at + 18);
        if (const auto space = symbol.find_first_of(" \t("); space != std::string::npos) {
            symbol.erase(space);
        }
        return "undefined symbol " + symbol + " (a library it needs is missing or too old)";
    }
    return "the dynamic linker refused it: " + message;
}

// The checks that need no loading: readable regular ELF file.
std::string file_problem(const std::string &path)
{
    struct stat info {
    };
    if (::stat(path.c_str(), &info) != 0) {
        const int error = errno;
        // A file that is listed but "does not exist" is a dangling link; say
        // where it points, which is what the user has to fix.
        struct stat link {
        };
        if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
            std::string target(static_cast<std::size_t>(PATH_MAX), '\0');
            const ssize_t length = ::readlink(path.c_str(), target.data(), target.size());
            if (length >= 0) {
                target.resize(static_cast<std::size_t>(length));
                return "broken symbolic link to " + target + ", which does not exist";
            }
        }
        return std::string("cannot read it: ") + std::strerror(error);
    }
    if (!S_ISREG(info.st_mode)) {
        return "not a regular file";
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::string("unreadable: ") + std::strerror(errno);
    }
    // e_ident (16 bytes), then e_type: 3 (ET_DYN) for a shared object.
    unsigned char header[18] = {};
    const ssize_t got = ::read(fd, header, sizeof header);
    ::close(fd);
    if (got < 4 || header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F') {
        return "not a shared object (no ELF header)";
    }
    if (got == static_cast<ssize_t>(sizeof header)) {
        const bool little_endian = header[5] == 1;
        const unsigned type =
            little_endian ? header[16] | (header[17] << 8) : (header[16] << 8) | header[17];
        if (type != 3) {
            return "not a shared object (an ELF " +
                   std::string(type == 1   ? "object file"
                               : type == 2 ? "executable"
                                           : "file of another type") +
                   ")";
        }
    }
    return {};
}

// The libraries a shared object names as needed (DT_NEEDED), read from its
// section headers without loading it; empty when it names none or is not
// an ELF file of this machine's class.  (Used by embedded copies only.)
[[maybe_unused]] std::vector<std::string> needed_libraries(const std::string &path)
{
    std::vector<std::string> needed;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return needed;
    }
    const auto read_at = [fd](void *into, std::size_t size, std::uint64_t offset) {
        return ::pread(fd, into, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
    };
    ElfW(Ehdr) header{};
    if (read_at(&header, sizeof header, 0) && std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
        header.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
        header.e_shentsize == sizeof(ElfW(Shdr)) && header.e_shnum > 0 && header.e_shnum < 4096) {
        std::vector<ElfW(Shdr)> sections(header.e_shnum);
        if (read_at(sections.data(), sections.size() * sizeof(ElfW(Shdr)), header.e_shoff)) {
            for (const auto &section : sections) {
                if (section.sh_type != SHT_DYNAMIC || section.sh_link >= sections.size() ||
                    section.sh_size > (1U << 20)) {
                    continue;
                }
                const auto &strings = sections[section.sh_link];
                std::vector<ElfW(Dyn)> entries(section.sh_size / sizeof(ElfW(Dyn)));
                if (!read_at(entries.data(), entries.size() * sizeof(ElfW(Dyn)),
                             section.sh_offset)) {
                    break;
                }
                for (const auto &entry : entries) {
                    if (entry.d_tag == DT_NULL) {
                        break;
                    }
                    if (entry.d_tag != DT_NEEDED || entry.d_un.d_val >= strings.sh_size) {
                        continue;
                    }
                    char name[256] = {};
                    const std::uint64_t left = strings.sh_size - entry.d_un.d_val;
                    const std::size_t size =
                        static_cast<std::size_t>(std::min<std::uint64_t>(sizeof name - 1, left));
                    if (read_at(name, size, strings.sh_offset + entry.d_un.d_val)) {
                        needed.emplace_back(name);
                    }
                }
            }
        }
    }
    ::close(fd);
    return needed;
}

// A copy of Meridian embedded in another library is linked into it and has
// no soname: a component that needs a libmeridian shared library was built
// against the standalone Meridian, and loading it would bring that second
// Meridian into the process beside this copy, the component registering its
// parameters and calling its base there.  Such a component is refused before
// it is loaded.  (The standalone library takes any: the libmeridian a
// component of its own needs is itself.)
#define MERIDIAN_QUOTE_(text) #text
#define MERIDIAN_QUOTE(text) MERIDIAN_QUOTE_(text)
#if defined(MERIDIAN_EMBEDDED_COPY)
// The C names of this embedded copy begin with it.
constexpr std::string_view embedded_prefix = MERIDIAN_QUOTE(MERIDIAN_SYMBOL_PREFIX);
#endif

std::string embedded_problem(const std::string &path)
{
#if defined(MERIDIAN_EMBEDDED_COPY)
    for (const auto &library : needed_libraries(path)) {
        if (util::starts_with(library, "libmeridian.so")) {
            return "needs " + library +
                   ", the standalone Meridian: this copy of Meridian is embedded in another "
                   "library (its C names begin with " +
                   std::string(embedded_prefix) +
                   "), and loading the component would bring a second Meridian into the "
                   "process; a component of an embedded copy is built into it (its directory "
                   "in the embedded sources' components/)";
        }
    }
#else
    (void)path;
#endif
    return {};
}

} // namespace

DsoHandle &DsoHandle::operator=(DsoHandle &&other) noexcept
{
    if (this != &other) {
        if (handle_ != nullptr) {
            lt_dlclose(static_cast<lt_dlhandle>(handle_));
        }
        handle_ = other.handle_;
        other.handle_ = nullptr;
    }
    return *this;
}

DsoHandle::~DsoHandle()
{
    if (handle_ != nullptr) {
        lt_dlclose(static_cast<lt_dlhandle>(handle_));
    }
}

void *DsoHandle::symbol(const std::string &name) const
{
    return handle_ != nullptr ? lt_dlsym(static_cast<lt_dlhandle>(handle_), name.c_str()) : nullptr;
}

namespace
{

std::vector<std::string> scan_component_files(const std::string &directory)
{
    constexpr std::string_view prefix = "mca_";
    constexpr std::string_view suffix = ".so";
    std::vector<std::string> names;
    // Closed however the scan ends (an allocation may fail in it).
    const std::unique_ptr<DIR, int (*)(DIR *)> dir(::opendir(directory.c_str()), ::closedir);
    if (!dir) {
        return names;
    }
    while (const dirent *entry = ::readdir(dir.get())) {
        const std::string_view name = entry->d_name;
        if (name.size() > prefix.size() + suffix.size() && util::starts_with(name, prefix) &&
            name.substr(name.size() - suffix.size()) == suffix) {
            names.emplace_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

// A directory's listing as of its last change: every framework scans the
// same directories, and a process's start would read each one once per
// framework.  A file added or removed changes the directory's mtime, so a
// listing is used again only while that (with the inode) is the same -- and
// only when it was taken over a second after that change, since the clock
// that stamps mtime is coarse: a file added in the same tick as the listing
// leaves the mtime as it was.
struct Listing {
    dev_t device = 0;
    ino_t inode = 0;
    timespec changed{};
    bool settled = false; // taken over a second after `changed`
    std::vector<std::string> names;
};

std::mutex listings_lock;

// Every directory searched, with its listing (empty when it cannot be read).
std::map<std::string, Listing, std::less<>> &listings()
{
    static util::NoDestructor<std::map<std::string, Listing, std::less<>>> all;
    return all.get();
}

} // namespace

bool component_directory_searched(const std::string &directory)
{
    const std::lock_guard<std::mutex> held(listings_lock);
    return listings().contains(directory);
}

std::vector<std::string> component_file_names(const std::string &directory)
{
    const std::lock_guard<std::mutex> held(listings_lock);
    Listing &listing = listings()[directory];
    struct stat info {
    };
    if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        listing = Listing{};
        return {};
    }
    if (!listing.settled || listing.device != info.st_dev || listing.inode != info.st_ino ||
        listing.changed.tv_sec != info.st_mtim.tv_sec ||
        listing.changed.tv_nsec != info.st_mtim.tv_nsec) {
        timespec now{};
        ::clock_gettime(CLOCK_REALTIME, &now);
        listing.names = scan_component_files(directory);
        listing.device = info.st_dev;
        listing.inode = info.st_ino;
        listing.changed = info.st_mtim;
        listing.settled = now.tv_sec > info.st_mtim.tv_sec + 1;
    }
    return listing.names;
}

std::vector<Candidate> find_candidates(std::string_view framework,
                                       const std::vector<std::string> &directories)
{
    const std::string prefix = "mca_" + std::string(framework) + "_";
    const std::string suffix = ".so";
    std::vector<Candidate> candidates;
    for (const auto &directory : directories) {
        for (const auto &name : component_file_names(directory)) {
            if (name.size() > prefix.size() + suffix.size() && util::starts_with(name, prefix)) {
                candidates.push_back(Candidate{
                    name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()),
                    directory + "/" + name});
            }
        }
    }
    return candidates;
}

std::string version_problem(const mca_base_framework_t &framework,
                            const mca_base_component_t &component)
{
    if (component.mca_abi_major != MCA_BASE_ABI_MAJOR) {
        return "built for MCA ABI " + std::to_string(component.mca_abi_major) + "." +
               std::to_string(component.mca_abi_minor) + ", this library uses " +
               std::to_string(MCA_BASE_ABI_MAJOR) + "." + std::to_string(MCA_BASE_ABI_MINOR);
    }
    const auto &wanted = framework.version;
    const auto &found = component.framework_version;
    if (found.major != wanted.major || found.minor > wanted.minor) {
        return "implements " + std::string(framework.name) + " interface " + version_text(found) +
               ", this library's " + framework.name + " framework is " + version_text(wanted) +
               " (needs major " + std::to_string(wanted.major) + ", minor at most " +
               std::to_string(wanted.minor) + ")";
    }
    return {};
}

Result<LoadedComponent> load_component(const mca_base_framework_t &framework,
                                       const Candidate &candidate)
{
    const auto refuse = [](std::string reason) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, std::move(reason));
    };
    if (auto problem = file_problem(candidate.path); !problem.empty()) {
        return refuse(problem);
    }
    if (auto problem = embedded_problem(candidate.path); !problem.empty()) {
        return refuse(problem);
    }

    // libltdl binds lazily and words every failure as "file not found", so an
    // eager probe with the system loader first: it catches unresolved symbols
    // now rather than at the first call, and says what is missing.
    dlerror();
    // Closed once libltdl holds the file, or however this ends.
    std::unique_ptr<void, int (*)(void *)> probe(
        ::dlopen(candidate.path.c_str(), RTLD_NOW | RTLD_LOCAL), ::dlclose);
    if (!probe) {
        const char *message = dlerror();
        return refuse(
            explain_dlerror(candidate.path, message != nullptr ? message : "unknown error"));
    }

    ensure_ltdl();
    lt_dladvise advise;
    lt_dladvise_init(&advise);
    lt_dladvise_local(&advise);
    DsoHandle handle(lt_dlopenadvise(candidate.path.c_str(), advise));
    lt_dladvise_destroy(&advise);
    const char *lt_message = handle ? nullptr : lt_dlerror();
    probe.reset(); // the libltdl handle keeps it loaded
    if (!handle) {
        return refuse(std::string("libltdl could not open it: ") +
                      (lt_message != nullptr ? lt_message : "unknown error"));
    }

    const std::string symbol =
        "mca_" + std::string(framework.name) + "_" + candidate.component + "_component";
    const auto *component = static_cast<const mca_base_component_t *>(handle.symbol(symbol));
    if (component == nullptr) {
        return refuse("does not export " + symbol);
    }
    // The ABI version comes first in every layout, so it is safe to read; the
    // rest only once it matches.
    if (component->mca_abi_major != MCA_BASE_ABI_MAJOR) {
        return refuse(version_problem(framework, *component));
    }
    const std::string framework_name = name_field(component->framework_name);
    const std::string component_name = name_field(component->component_name);
    if (framework_name != framework.name || component_name != candidate.component) {
        return refuse("names itself " + framework_name + "/" + component_name +
                      ", but its file name says " + framework.name + "/" + candidate.component);
    }
    if (auto problem = version_problem(framework, *component); !problem.empty()) {
        return refuse(problem);
    }
    return LoadedComponent{component, candidate.path, std::move(handle)};
}

} // namespace meridian::mca
