// meridian_carto: the host's map (the carto framework's graph of processors,
// memory nodes and ports) as carto text, DOT or JSON; distance lists and
// shortest paths in it.
//
// The command line is judged before anything is mapped, so a mistake in it
// costs nothing and gets its own exit status (2); the map is made by the
// carto base, whose component says what went wrong when it cannot (1).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/mca/runtime/meridian.h>
#include "mca/tools/meridian_carto/commands.hpp"
#include "mca/tools/meridian_carto/options.hpp"
#include "mca/tools/tool_command_line.hpp"
#include "mca/tools/tool_session.hpp"
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

using namespace meridian;
using tools::MeridianSession;
using tools::write_out;

using tools::exit_failure;
using tools::exit_usage;

} // namespace

int main(int argc, char **argv)
{
    // --mca and --tune are taken out first; what is left is ours.
    if (const int status = tools::apply_meridian_options(argc, argv); status != 0) {
        return status;
    }
    const auto options = carto_tool::parse_options(argc, argv);
    if (!options) {
        report_error(options.error().message);
        return exit_usage;
    }
    if (options->help) {
        return write_out(carto_tool::usage_text()) ? 0 : exit_failure;
    }
    if (options->version) {
        return write_out(std::string("meridian_carto (Meridian) ") + meridian_version() + "\n")
                   ? 0
                   : exit_failure;
    }

    const MeridianSession session;
    if (!session.ok()) {
        return exit_failure; // reported by the library
    }
    std::string out;
    const int status = carto_tool::run_command(*options, out);
    if (!write_out(out)) {
        return exit_failure;
    }
    // An error reported on the way (a component that could not be loaded,
    // say) fails the run even when an answer could be given.
    return status != 0 ? status : meridian_error_count() > 0 ? exit_failure : 0;
}
