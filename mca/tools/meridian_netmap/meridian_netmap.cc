// SPDX-License-Identifier: BSD-3-Clause
// meridian_netmap: the pnet pipeline offline, for resource managers and for
// tests at scale -- a fabric file, a host list and requests in; each
// process's ports, NICs (nearest first) and coordinates out.
//
// The command line is judged before anything is read, so a mistake in it
// costs nothing and gets its own exit status (2); the rest of the pipeline
// (fabric file, job map, allocation, coordinates) fails with 1, its message
// given once, by whoever found the problem.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "mca/tools/meridian_netmap/options.hpp"
#include "mca/tools/meridian_netmap/output.hpp"
#include "mca/tools/tool_main.hpp"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>
#include <meridian/opal/util/output.hpp>

namespace
{

using namespace meridian;
using tools::exit_failure;

// An allocated job gives its ports back however main leaves.
class Allocation
{
  public:
    explicit Allocation(mca_pnet_job &job) : job_(job) {}
    ~Allocation() { (void)pnet::deregister(job_); }
    Allocation(const Allocation &) = delete;
    Allocation &operator=(const Allocation &) = delete;

  private:
    mca_pnet_job &job_;
};

// A failed step's message, unless whoever failed has reported it already
// (a pnet or coord module reports its reason before returning an error).
void report_unless_reported(const Error &error, unsigned long errors_before)
{
    if (meridian_error_count() == errors_before && !error.message.empty()) {
        report_error(error.message);
    } else if (meridian_error_count() == errors_before) {
        report_error(std::string("the allocation failed: ") + meridian_strerror(error.status));
    }
}

int run(const netmap_tool::Options &options)
{
    auto read = fabric::read_fabric_file(options.fabric_path);
    if (!read) {
        report_error(read.error().message);
        return exit_failure;
    }
    auto fabric = std::make_shared<const fabric::Fabric>(std::move(*read));
    auto map = fabric::make_job_map(*fabric, options.hosts, options.binding, "--hosts");
    if (!map) {
        report_error(map.error().message);
        return exit_failure;
    }

    unsigned long errors_before = meridian_error_count();
    auto job = pnet::make_job(fabric, std::move(*map), options.requests);
    if (!job) {
        report_unless_reported(job.error(), errors_before);
        return exit_failure;
    }
    errors_before = meridian_error_count();
    if (auto allocated = pnet::allocate(**job); !allocated) {
        report_unless_reported(allocated.error(), errors_before);
        return exit_failure;
    }
    const Allocation allocation(**job);

    // Counted from before the allocation: a coord component that could not
    // place the job said why then, and the output's failure for want of
    // coordinates needs no second message.
    netmap_tool::StreamOut out(stdout);
    const auto written = options.format == netmap_tool::Format::json
                             ? netmap_tool::write_json(**job, options.view, out)
                             : netmap_tool::write_table(**job, options.view, out);
    const bool flushed = out.finish();
    if (!flushed) {
        report_error(std::string("cannot write the output: ") + std::strerror(errno));
        return exit_failure;
    }
    if (!written) {
        report_unless_reported(written.error(), errors_before);
        return exit_failure;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    const tools::ToolCommandLine<netmap_tool::Options> tool = {
        .name = "meridian_netmap",
        .parse_options = netmap_tool::parse_options,
        .usage_text = netmap_tool::usage_text,
        .errors_fail_answers = false,
    };
    return tools::run_tool(argc, argv, tool, run);
}
