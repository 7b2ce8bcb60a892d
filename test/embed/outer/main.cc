// SPDX-License-Identifier: BSD-3-Clause
// A program that embeds Meridian (static, environment prefix EMBED_MCA_) and
// checks, through the C and the C++ API, that it got what it configured.
//
// Run as:  embed alpha --mca coord_base_verbose warn --beta --tune FILE gamma
// with EMBED_MCA_carto_base_verbose=max and MERIDIAN_MCA_pnet_base_verbose=max
// in the environment and FILE holding "msg_base_verbose = debug" on line 1.
// Prints one line per check and exits 1 if any failed.
#include <cstdio>
#include <string>
#include <vector>

#include <meridian/meridian.hpp>

namespace
{

int failures = 0;

void check(bool ok, const std::string &what, const std::string &found)
{
    std::printf("%s: %s (found %s)\n", ok ? "ok" : "FAIL", what.c_str(), found.c_str());
    failures += ok ? 0 : 1;
}

// The value, as text, through the C API.
std::string c_value(const char *name)
{
    const int index = meridian_mca_base_param_find(name);
    if (index < 0) {
        return std::string("<") + meridian_strerror(index) + ">";
    }
    char buffer[64];
    meridian_mca_base_param_value_string(index, buffer, sizeof buffer);
    return buffer;
}

// Where the value came from, through the C++ registry.
const meridian::mca::SourceRef *source_of(const char *name)
{
    auto &registry = meridian::mca::ParamRegistry::instance();
    const auto index = registry.find(name);
    return index ? &registry.param(*index)->source() : nullptr;
}

std::string describe(const meridian::mca::SourceRef *source)
{
    return source != nullptr ? source->describe() : "<not registered>";
}

} // namespace

int main(int argc, char **argv)
{
    const int rc = meridian_init(&argc, &argv);
    check(rc == MERIDIAN_SUCCESS, "meridian_init succeeds", meridian_strerror(rc));
    if (rc != MERIDIAN_SUCCESS) {
        return 1;
    }

    check(std::string(meridian_mca_base_env_prefix()) == "EMBED_MCA_",
          "the environment prefix is the one configured", meridian_mca_base_env_prefix());

    // --mca and --tune are Meridian's; the rest is the program's, in order.
    std::string rest;
    for (int i = 1; i < argc; ++i) {
        rest += (i > 1 ? " " : "") + std::string(argv[i]);
    }
    check(rest == "alpha --beta gamma" && argv[argc] == nullptr,
          "--mca and --tune are taken out of argv, leaving 'alpha --beta gamma'", "'" + rest + "'");

    const auto *carto = source_of("carto_base_verbose");
    check(meridian_carto_base_framework.verbose == MCA_BASE_VERBOSE_MAX && carto != nullptr &&
              carto->variable == "EMBED_MCA_carto_base_verbose",
          "EMBED_MCA_carto_base_verbose=max sets carto's verbosity to 100",
          std::to_string(meridian_carto_base_framework.verbose) + " from " + describe(carto) +
              (carto != nullptr && !carto->variable.empty() ? " " + carto->variable : ""));

    const auto *pnet = source_of("pnet_base_verbose");
    check(meridian_pnet_base_framework.verbose == 0 && describe(pnet) == "default",
          "MERIDIAN_MCA_pnet_base_verbose=max is not read (another program's prefix)",
          std::to_string(meridian_pnet_base_framework.verbose) + " from " + describe(pnet));

    const auto *coord = source_of("coord_base_verbose");
    check(meridian_coord_base_framework.verbose == MCA_BASE_VERBOSE_WARN &&
              describe(coord) == "command line",
          "--mca coord_base_verbose warn sets coord's verbosity to 10",
          std::to_string(meridian_coord_base_framework.verbose) + " from " + describe(coord));

    const auto *msg = source_of("msg_base_verbose");
    check(meridian_msg_base_framework.verbose == MCA_BASE_VERBOSE_DEBUG && msg != nullptr &&
              msg->kind == meridian::mca::SourceKind::tune_file && msg->line == 1,
          "--tune FILE sets msg's verbosity to 40 from line 1",
          std::to_string(meridian_msg_base_framework.verbose) + " from " + describe(msg));

    // The C and C++ views of one value agree.
    auto &registry = meridian::mca::ParamRegistry::instance();
    const auto index = registry.find("coord_base_verbose");
    const std::string cxx_text = index ? registry.param(*index)->value_text() : "<not registered>";
    check(c_value("coord_base_verbose") == cxx_text,
          "meridian_mca_base_param_value_string agrees with Param::value_text",
          c_value("coord_base_verbose") + " and " + cxx_text);

    // Statically built: every carto component is built in (no DSO path).
    std::size_t built_in = 0;
    std::size_t from_dso = 0;
    for (const auto &view : meridian::mca::framework_components(meridian_carto_base_framework)) {
        ++(view.path.empty() ? built_in : from_dso);
    }
    check(from_dso == 0, "no carto component comes from a DSO",
          std::to_string(built_in) + " built in, " + std::to_string(from_dso) + " from DSOs");

    meridian_finalize();
    std::printf("embed: %d check(s) failed\n", failures);
    return failures == 0 ? 0 : 1;
}
