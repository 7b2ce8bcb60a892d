// SPDX-License-Identifier: BSD-3-Clause
// Finding and loading component DSOs.
//
// For a framework fw, every directory of the component path is scanned for
// mca_<fw>_<component>.so.  Each candidate is checked before anything in it is
// called: readable regular file, ELF, loadable with every symbol bound (so a
// missing library or symbol is caught at load, not at first call), exporting
// mca_<fw>_<component>_component, MCA ABI and framework interface versions
// compatible, and names inside matching the file name.  The first failing
// check is the reason given.
#ifndef MERIDIAN_MCA_BASE_COMPONENT_REPOSITORY_HPP
#define MERIDIAN_MCA_BASE_COMPONENT_REPOSITORY_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/result.hpp>

namespace meridian::mca
{

// An open DSO; closes it when destroyed.
class DsoHandle
{
  public:
    DsoHandle() = default;
    explicit DsoHandle(void *handle) : handle_(handle) {}
    DsoHandle(DsoHandle &&other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
    DsoHandle &operator=(DsoHandle &&other) noexcept;
    DsoHandle(const DsoHandle &) = delete;
    DsoHandle &operator=(const DsoHandle &) = delete;
    ~DsoHandle();

    void *symbol(const std::string &name) const;
    explicit operator bool() const { return handle_ != nullptr; }

  private:
    void *handle_ = nullptr; // lt_dlhandle
};

struct LoadedComponent {
    const mca_base_component_t *component = nullptr;
    std::string path; // empty for a built-in component
    DsoHandle handle;
};

struct LoadFailure {
    std::string framework;
    std::string component; // from the file name
    std::string path;
    std::string reason;
};

struct Candidate {
    std::string component; // from the file name
    std::string path;
};

// The names of the component files in one directory ("mca_*.so", sorted);
// none when it cannot be read.  Read again only when the directory changed
// since the last call (its mtime): each framework asks for the same ones.
std::vector<std::string> component_file_names(const std::string &directory);
// Whether component_file_names was asked about the directory in this
// process: the checks of the component path look only at the directories a
// framework searched, so that a process that loads no component (one whose
// launcher or node leader set its network up) touches no directory.
bool component_directory_searched(const std::string &directory);

// The DSO files of a framework in a search path (directories in order, names
// sorted within a directory).  Directories that do not exist are skipped.
std::vector<Candidate> find_candidates(std::string_view framework,
                                       const std::vector<std::string> &directories);

// Load and check one candidate for a framework.
Result<LoadedComponent> load_component(const mca_base_framework_t &framework,
                                       const Candidate &candidate);

// Whether the reason a version check refuses a component; empty when accepted.
std::string version_problem(const mca_base_framework_t &framework,
                            const mca_base_component_t &component);

} // namespace meridian::mca

#endif
