// What the pnet base's files share with each other (and with the runtime,
// which starts in-job mode); not installed.
#ifndef MERIDIAN_MCA_PNET_BASE_INTERNAL_HPP
#define MERIDIAN_MCA_PNET_BASE_INTERNAL_HPP

#include <string>
#include <string_view>
#include <vector>

namespace meridian::pnet::detail
{

// pnet_base_frame.cc: the stored text of pnet_base_requests (nullptr when
// unset), for requests_from_params.
const char *requests_parameter_text();

// pnet_base_pipeline.cc: the selected modules die with the framework; its
// close hook calls this.
void framework_closing();
// pnet_base_pipeline.cc: every type the active modules serve, in module
// order (a type once), and the best module serving `type` ("" when none).
std::vector<std::string> served_types();
std::string component_serving(std::string_view type);

// pnet_base_injob.cc: with deferred, in_job() (and the first coord query)
// runs the pipeline on its first call; meridian_init sets it for a
// singleton under pnet_base_in_job=auto.
void defer_in_job(bool deferred);

} // namespace meridian::pnet::detail

#endif
