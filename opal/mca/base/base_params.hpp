// SPDX-License-Identifier: BSD-3-Clause
// The MCA base's own parameters (mca_base_*), for the pieces of the base.
#ifndef MERIDIAN_MCA_BASE_BASE_PARAMS_HPP
#define MERIDIAN_MCA_BASE_BASE_PARAMS_HPP

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace meridian::mca
{

// Registers the core parameters and reads the sources if that has not
// happened yet (frameworks may be registered before any explicit open).
void ensure_base_open();

// mca_base_component_path split into directories, with ~ and $HOME expanded.
std::vector<std::string> component_directories();

// mca_base_component_show_load_errors: all, none, or a list of framework or
// framework_component names.
bool show_load_error(std::string_view framework, std::string_view component);

// Once every framework is registered (meridian_mca_base_check_params): say
// what in mca_base_component_show_load_errors and mca_base_component_path
// names nothing, and which files in the component directories no framework
// takes (a misspelt framework, no component name) -- of the directories a
// framework searched so far: a process that loads no component (its
// launcher or node leader set its network up) reads no directory, and at
// 10^5 processes on a shared file system that is a storm avoided.
void check_component_discovery();

// mca_base_strict_params: an unknown setting is an error, not a warning.
bool strict_params();

// mca_base_message_aggregate and mca_base_message_window
// (opal/runtime/job_messages.hpp).
bool message_aggregate();
std::chrono::milliseconds message_window();

// mca_base_datastore: "auto", "local", "pmix", "pmi", "pmi1", "pmi2" or
// "mpi".
std::string_view datastore_backend();

} // namespace meridian::mca

#endif
