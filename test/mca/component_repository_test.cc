// SPDX-License-Identifier: BSD-3-Clause
// The component repository: which files of mca_base_component_path become
// components, and the one-line reason for each that cannot (the issue's
// "every load failure with its reason"), while the good ones still load.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "test/mca/mca_test_support.hpp"
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>

using namespace mca_test;
using namespace meridian_test;

namespace
{

const char *const from_api = "the API";

// The frameworks this test program declares, as the messages list them.
std::string declared_frameworks()
{
    return "testfw, testmulti";
}

std::string v(int major, int minor, int release)
{
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

// The reason given for a component whose testfw interface version is wrong.
std::string interface_reason(int major, int minor)
{
    return "implements testfw interface " + v(major, minor, 0) +
           ", this library's testfw framework is " +
           v(TESTFW_VERSION_MAJOR, TESTFW_VERSION_MINOR, TESTFW_VERSION_RELEASE) +
           " (needs major " + std::to_string(TESTFW_VERSION_MAJOR) + ", minor at most " +
           std::to_string(TESTFW_VERSION_MINOR) + ")";
}

// One way a file in the component path cannot be a component.
struct BadCase {
    const char *component; // from the file name mca_testfw_<component>.so
    std::function<void(const ComponentDir &)> make;
    std::function<std::string()> reason;
};

std::function<void(const ComponentDir &)> fixture(const char *file)
{
    return [file](const ComponentDir &dir) { dir.add(file); };
}

const std::vector<BadCase> &bad_cases()
{
    static const std::vector<BadCase> cases = {
        {"nodep", fixture("mca_testfw_nodep.so"),
         [] {
             return std::string("missing dependency: libmeridian_test_gone.so was not found "
                                "(libmeridian_test_gone.so: cannot open shared object file: No "
                                "such file or directory)");
         }},
        {"undef", fixture("mca_testfw_undef.so"),
         [] {
             return std::string("undefined symbol meridian_test_function_nowhere (a library it "
                                "needs is missing or too old)");
         }},
        {"nosym", fixture("mca_testfw_nosym.so"),
         [] { return std::string("does not export mca_testfw_nosym_component"); }},
        {"abi", fixture("mca_testfw_abi.so"),
         [] {
             return "built for MCA ABI " + std::to_string(MCA_BASE_ABI_MAJOR + 1) + "." +
                    std::to_string(MCA_BASE_ABI_MINOR) + ", this library uses " +
                    std::to_string(MCA_BASE_ABI_MAJOR) + "." + std::to_string(MCA_BASE_ABI_MINOR);
         }},
        {"ifmajor", fixture("mca_testfw_ifmajor.so"),
         [] { return interface_reason(TESTFW_VERSION_MAJOR + 1, 0); }},
        {"ifminor", fixture("mca_testfw_ifminor.so"),
         [] { return interface_reason(TESTFW_VERSION_MAJOR, TESTFW_VERSION_MINOR + 1); }},
        {"misnamed", fixture("mca_testfw_misnamed.so"),
         [] {
             return std::string(
                 "names itself testfw/renamed, but its file name says testfw/misnamed");
         }},
        {"misframed", fixture("mca_testfw_misframed.so"),
         [] {
             return std::string(
                 "names itself testmulti/misframed, but its file name says testfw/misframed");
         }},
        {"text",
         [](const ComponentDir &dir) {
             dir.add_text("mca_testfw_text.so", "This is a text file, not a shared object.\n");
         },
         [] { return std::string("not a shared object (no ELF header)"); }},
        {"empty", [](const ComponentDir &dir) { dir.add_text("mca_testfw_empty.so", ""); },
         [] { return std::string("not a shared object (no ELF header)"); }},
        {"dir", [](const ComponentDir &dir) { dir.add_directory("mca_testfw_dir.so"); },
         [] { return std::string("not a regular file"); }},
        {"link",
         [](const ComponentDir &dir) {
             dir.add_symlink("mca_testfw_link.so", "missing-target.so");
         },
         [] {
             return std::string("broken symbolic link to missing-target.so, which does not exist");
         }},
    };
    return cases;
}

std::string load_message(const std::string &path, const std::string &reason)
{
    return "cannot load component " + path + ": " + reason;
}

// Register, open and select testfw: the framework carries on with alpha.
void expect_alpha_selected()
{
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    const mca_base_component_t *component = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, &component), MERIDIAN_SUCCESS);
    ck_assert_str_eq(component->component_name, "alpha");
    ck_assert_text_eq(module_name(module), "alpha");
}

} // namespace

// Each bad file next to a good component: the failure is recorded with the
// file's path and the exact reason, reported on one line, nothing in the
// bad file is ever called, and alpha still loads and is selected.
START_TEST(test_load_failure_has_path_and_reason)
{
    const BadCase &bad = bad_cases().at(static_cast<std::size_t>(_i));
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    bad.make(dir);
    const std::string path = dir.file("mca_testfw_" + std::string(bad.component) + ".so");
    use_component_path({dir.path()});

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);

    const auto failures = meridian::mca::framework_failures(testfw);
    ck_assert_uint_eq(failures.size(), 1);
    ck_assert_text_eq(failures[0].framework, "testfw");
    ck_assert_text_eq(failures[0].component, bad.component);
    ck_assert_text_eq(failures[0].path, path);
    ck_assert_text_eq(failures[0].reason, bad.reason());
    ck_assert_messages(WARNING_MSG(load_message(path, bad.reason())));
    ck_assert_ptr_null(std::strchr(messages()[0].text.c_str(), '\n'));
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);

    expect_alpha_selected();
    // Only testfw and alpha were ever called.
    ck_assert_int_eq(static_cast<int>(events().size()), 5);
    ck_assert_text_eq(events()[0], "testfw register");
    ck_assert_text_eq(events()[1], "testfw/alpha register");
    ck_assert_text_eq(events()[2], "testfw/alpha open");
    ck_assert_text_eq(events()[3], "testfw open");
    ck_assert_text_eq(events()[4], "testfw/alpha query");
}
END_TEST

// All the bad files at once, with three good components: one failure and
// one message each, in path order, and every good component loads.
START_TEST(test_every_failure_in_one_directory)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_beta.so");
    dir.add("mca_testfw_older.so");
    std::vector<std::pair<std::string, std::string>> expected; // sorted by file name
    for (const auto &bad : bad_cases()) {
        bad.make(dir);
        expected.emplace_back(bad.component, bad.reason());
    }
    std::sort(expected.begin(), expected.end());
    use_component_path({dir.path()});

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);

    const auto failures = meridian::mca::framework_failures(testfw);
    ck_assert_uint_eq(failures.size(), expected.size());
    ck_assert_uint_eq(messages().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const std::string path = dir.file("mca_testfw_" + expected[i].first + ".so");
        ck_assert_text_eq(failures[i].component, expected[i].first);
        ck_assert_text_eq(failures[i].path, path);
        ck_assert_text_eq(failures[i].reason, expected[i].second);
        ck_assert_int_eq(messages()[i].severity, MERIDIAN_SEVERITY_WARNING);
        ck_assert_text_eq(messages()[i].text, load_message(path, expected[i].second));
    }
    ck_assert_text_eq(components_of(testfw), "alpha=" + dir.file("mca_testfw_alpha.so") +
                                                 ", beta=" + dir.file("mca_testfw_beta.so") +
                                                 ", older=" + dir.file("mca_testfw_older.so"));

    // An older minor interface version (older: 1.0 against 1.2) is accepted.
    ck_assert_int_eq(meridian_mca_base_framework_open(&testfw), MERIDIAN_SUCCESS);
    mca_base_module_t *module = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&testfw, &module, nullptr), MERIDIAN_SUCCESS);
    ck_assert_text_eq(module_name(module), "beta");
}
END_TEST

namespace
{

// Root reads mode-000 files, so as root the test acts as user and group
// nobody (65534) while loading.  Only the effective ids change: the saved
// set-user-ID stays 0, so the test becomes root again to clean up.
class ActAsNobody
{
  public:
    ActAsNobody()
    {
        if (::geteuid() != 0) {
            return;
        }
        const int count = ::getgroups(0, nullptr);
        groups_.resize(static_cast<std::size_t>(count > 0 ? count : 0));
        if (count > 0 && ::getgroups(count, groups_.data()) < 0) {
            problem_ = std::string("getgroups: ") + std::strerror(errno);
            return;
        }
        const gid_t nobody_group = 65534;
        if (::setgroups(1, &nobody_group) != 0) {
            problem_ = std::string("setgroups: ") + std::strerror(errno);
            return;
        }
        changed_ = true;
        if (::setegid(65534) != 0 || ::seteuid(65534) != 0) {
            problem_ = std::string("cannot act as nobody: ") + std::strerror(errno);
            restore();
        }
    }
    ~ActAsNobody() { restore(); }
    ActAsNobody(const ActAsNobody &) = delete;
    ActAsNobody &operator=(const ActAsNobody &) = delete;

    // Empty when the process now acts without root's rights.
    const std::string &problem() const { return problem_; }

  private:
    void restore()
    {
        if (!changed_) {
            return;
        }
        changed_ = false;
        // Failing to become root again would leave the scratch files behind;
        // the test cannot do better than to say so.
        if (::seteuid(0) != 0 || ::setegid(0) != 0 ||
            ::setgroups(groups_.size(), groups_.data()) != 0) {
            std::fprintf(stderr, "component_repository_test: cannot become root again: %s\n",
                         std::strerror(errno));
        }
    }

    std::vector<gid_t> groups_;
    bool changed_ = false;
    std::string problem_;
};

} // namespace

START_TEST(test_unreadable_file)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    // locked is a good component: only its permissions keep it out.
    const std::string locked = dir.add("mca_testfw_locked.so");
    ck_assert_int_eq(::chmod(locked.c_str(), 0), 0);
    use_component_path({dir.path()});

    ActAsNobody nobody;
    if (!nobody.problem().empty()) {
        std::fprintf(stderr, "SKIP test_unreadable_file: %s\n", nobody.problem().c_str());
        return;
    }
    if (DIR *listing = ::opendir(dir.path().c_str()); listing != nullptr) {
        ::closedir(listing);
    } else {
        std::fprintf(stderr, "SKIP test_unreadable_file: %s cannot be read without root: %s\n",
                     dir.path().c_str(), std::strerror(errno));
        return;
    }
    if (const int fd = ::open(locked.c_str(), O_RDONLY); fd >= 0) {
        ::close(fd);
        std::fprintf(stderr, "SKIP test_unreadable_file: this process reads mode-000 files\n");
        return;
    }

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(failures_of(testfw), "locked: unreadable: Permission denied");
    ck_assert_text_eq(meridian::mca::framework_failures(testfw).at(0).path, locked);
    ck_assert_messages(WARNING_MSG(load_message(locked, "unreadable: Permission denied")));
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);
    expect_alpha_selected();
}
END_TEST

// ---------------------------------------------------------------- reporting

namespace
{

// alpha, nosym and abi in one directory, load errors shown as `show`.
void register_with_show_load_errors(const ComponentDir &dir, const std::string &show)
{
    dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_nosym.so");
    dir.add("mca_testfw_abi.so");
    use_component_path({dir.path()});
    set_param("mca_base_component_show_load_errors", show);
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    // Shown or not, both failures are recorded (meridian_info --show-failed).
    const auto failures = meridian::mca::framework_failures(testfw);
    ck_assert_uint_eq(failures.size(), 2);
    ck_assert_text_eq(failures[0].component, "abi");
    ck_assert_text_eq(failures[1].component, "nosym");
    ck_assert_text_eq(components_of(testfw), "alpha=" + dir.file("mca_testfw_alpha.so"));
}

std::string abi_reason()
{
    return "built for MCA ABI " + std::to_string(MCA_BASE_ABI_MAJOR + 1) + "." +
           std::to_string(MCA_BASE_ABI_MINOR) + ", this library uses " +
           std::to_string(MCA_BASE_ABI_MAJOR) + "." + std::to_string(MCA_BASE_ABI_MINOR);
}

} // namespace

START_TEST(test_show_load_errors_none_still_records)
{
    ComponentDir dir("components");
    register_with_show_load_errors(dir, "none");
    ck_assert_no_messages();
    expect_alpha_selected();
}
END_TEST

START_TEST(test_show_load_errors_one_component)
{
    ComponentDir dir("components");
    register_with_show_load_errors(dir, "testfw_nosym");
    ck_assert_messages(WARNING_MSG(load_message(dir.file("mca_testfw_nosym.so"),
                                                "does not export mca_testfw_nosym_component")));
}
END_TEST

START_TEST(test_show_load_errors_whole_framework)
{
    ComponentDir dir("components");
    register_with_show_load_errors(dir, "testmulti, testfw");
    ck_assert_messages(WARNING_MSG(load_message(dir.file("mca_testfw_abi.so"), abi_reason())),
                       WARNING_MSG(load_message(dir.file("mca_testfw_nosym.so"),
                                                "does not export mca_testfw_nosym_component")));
}
END_TEST

// Names in mca_base_component_show_load_errors that match nothing are told
// once the frameworks are registered, with what they could have been.
START_TEST(test_show_load_errors_bad_names_told)
{
    ComponentDir dir("components");
    register_with_show_load_errors(dir, "tesfw, testfw_alpah, testfw_nosym, all, testmulti");
    ck_assert_int_eq(meridian_mca_base_framework_register(&testmulti), MERIDIAN_SUCCESS);
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    const std::string head = "MCA parameter mca_base_component_show_load_errors (set in " +
                             std::string(from_api) + ") names ";
    ck_assert_messages(
        ERROR_MSG(head +
                  "\"tesfw\", which is no framework or framework_component (the "
                  "frameworks are: " +
                  declared_frameworks() + "; did you mean testfw?)"),
        ERROR_MSG(head + "\"testfw_alpah\", but framework testfw has no component \"alpah\" "
                         "(its components are: abi, alpha, nosym; did you mean testfw_alpha?)"),
        ERROR_MSG(head + "\"all\", which is a whole value, not an item of a list"));
}
END_TEST

START_TEST(test_show_load_errors_other_framework)
{
    ComponentDir dir("components");
    register_with_show_load_errors(dir, "testmulti,testfw_alpha");
    ck_assert_no_messages();
}
END_TEST

// Closing forgets the failures; registering again finds and reports them
// again (the files may have changed in between).
START_TEST(test_failures_found_again_after_close)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    const std::string nosym = dir.add("mca_testfw_nosym.so");
    use_component_path({dir.path()});
    const std::string message = load_message(nosym, "does not export mca_testfw_nosym_component");

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG(message));
    ck_assert_int_eq(meridian_mca_base_framework_close(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(failures_of(testfw), "");
    ck_assert_text_eq(components_of(testfw), "");

    clear_messages();
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG(message));
    ck_assert_text_eq(failures_of(testfw), "nosym: does not export mca_testfw_nosym_component");
}
END_TEST

// ---------------------------------------------------------------- the path

// Only mca_testfw_<name>.so files are candidates; other files, other
// frameworks' DSOs and missing directories are passed over in silence.
START_TEST(test_only_matching_file_names_are_candidates)
{
    ComponentDir dir("components");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_beta.so", "mca_testfw_beta.so.1");
    dir.add("mca_testfw_beta.so", "libmca_testfw_beta.so");
    dir.add("mca_testfw_beta.so", "mca_testfwx_beta.so");
    dir.add("mca_testfw_beta.so", "mca_testfw_.so");
    dir.add("mca_testfw_beta.so", "mca_testfw_beta.la");
    dir.add("mca_testmulti_one.so");
    dir.add_text("README", "not a component\n");
    use_component_path({scratch() + "/no-such-directory", dir.path()});

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);
    ck_assert_text_eq(failures_of(testfw), "");
    ck_assert_no_messages();
}
END_TEST

// What the scan passes over is told by the check made once every framework
// is registered: a file for a framework whose name is a typo of one of ours
// and a file with no component name.  Other files, and other programs'
// frameworks (mca_other_x.so), stay unmentioned.
START_TEST(test_stray_files_told_by_the_check)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    dir.add("mca_testfw_beta.so", "mca_tsetfw_beta.so");
    dir.add("mca_testfw_beta.so", "mca_testfw_.so");
    dir.add("mca_testfw_beta.so", "mca_testfw_beta.so.1");
    dir.add("mca_testfw_beta.so", "mca_testfw_beta.la");
    dir.add("mca_testfw_beta.so", "mca_carto_beta.so");
    dir.add_text("README", "not a component\n");
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&testmulti), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG("cannot load component " + dir.file("mca_testfw_.so") +
                                   ": the file name has no component name (mca_testfw_NAME.so)"),
                       WARNING_MSG("cannot load component " + dir.file("mca_tsetfw_beta.so") +
                                   ": no framework is named \"tsetfw\" (did you mean testfw?)"));

    // Not shown when load errors are not.
    clear_messages();
    set_param("mca_base_component_show_load_errors", "none");
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// A component path set to a directory that is not there, or to a file, is
// told (with the relative name made absolute); the default path, whose
// $HOME/.meridian/components need not exist, is not.
START_TEST(test_component_path_problems_told)
{
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();

    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    const std::string file = dir.add_text("plain-file", "x\n");
    ck_assert_int_eq(chdir(scratch().c_str()), 0);
    use_component_path({"no-such-directory", file, dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "alpha=" + dir.file("mca_testfw_alpha.so"));
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    const std::string head =
        "MCA parameter mca_base_component_path (set in " + std::string(from_api) + ") names ";
    ck_assert_messages(
        WARNING_MSG(head + scratch() +
                    "/no-such-directory, which does not exist; no component is "
                    "loaded from it"),
        WARNING_MSG(head + file + ", which is not a directory; no component is loaded from it"));
}
END_TEST

// A relative directory is the working directory's: its components load, and
// are known by their absolute paths.
START_TEST(test_relative_component_path)
{
    ComponentDir dir("components");
    dir.add("mca_testfw_alpha.so");
    ck_assert_int_eq(chdir(scratch().c_str()), 0);
    use_component_path({"components"});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "alpha=" + dir.file("mca_testfw_alpha.so"));
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// A symbolic link to a good DSO (as installs often make) is a component like
// any other, known by the link's path.
START_TEST(test_symlink_to_component_loads)
{
    ComponentDir store("store");
    const std::string real = store.add("mca_testfw_beta.so", "beta-2.1.so");
    ComponentDir dir("components");
    const std::string link = dir.add_symlink("mca_testfw_beta.so", real);
    use_component_path({dir.path()});
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "beta=" + link);
    ck_assert_text_eq(failures_of(testfw), "");
    ck_assert_no_messages();
}
END_TEST

// The same component in two directories of the path: the first directory's
// copy is used, the second is ignored with a notice naming it.
START_TEST(test_first_directory_wins)
{
    ComponentDir first("first");
    ComponentDir second("second");
    const std::string alpha = first.add("mca_testfw_alpha.so");
    const std::string shadowed = second.add("mca_testfw_alpha.so");
    const std::string beta = second.add("mca_testfw_beta.so");
    use_component_path({first.path(), second.path()});

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha + ", beta=" + beta);
    ck_assert_messages(NOTICE_MSG(shadowed +
                                  ": ignored: component testfw/alpha is already loaded "
                                  "from " +
                                  alpha));
    ck_assert_text_eq(failures_of(testfw), "");
    ck_assert_int_eq(count_events("testfw/alpha register"), 1);
    ck_assert(dso_is_loaded(alpha));
    ck_assert(!dso_is_loaded(shadowed));
}
END_TEST

// The default path ends with $HOME/.meridian/components, taken from HOME
// when the directories are searched.
START_TEST(test_home_components_by_default)
{
    const std::string home = scratch() + "/home";
    ck_assert_int_eq(::setenv("HOME", home.c_str(), 1), 0);
    ComponentDir user("home/.meridian/components");
    const std::string alpha = user.add("mca_testfw_alpha.so");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const std::string path = value_of("mca_base_component_path");
    const std::string tail = ":$HOME/.meridian/components";
    ck_assert_msg(path.size() > tail.size() &&
                      path.compare(path.size() - tail.size(), tail.size(), tail) == 0,
                  "default mca_base_component_path is \"%s\"", path.c_str());

    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw),
                      "alpha=" + home + "/.meridian/components/mca_testfw_alpha.so");
    ck_assert_no_messages();
    expect_alpha_selected();
}
END_TEST

START_TEST(test_tilde_in_path)
{
    ComponentDir dir("mine");
    const std::string alpha = dir.add("mca_testfw_alpha.so");
    set_param("mca_base_component_path", "~/mine");
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "alpha=" + alpha);
}
END_TEST

// The path may also come from the environment.
START_TEST(test_path_from_environment)
{
    ComponentDir dir("components");
    const std::string beta = dir.add("mca_testfw_beta.so");
    const std::string name =
        std::string(meridian_mca_base_env_prefix()) + "mca_base_component_path";
    ck_assert_int_eq(::setenv(name.c_str(), dir.path().c_str(), 1), 0);
    ck_assert_int_eq(meridian_mca_base_framework_register(&testfw), MERIDIAN_SUCCESS);
    ck_assert_text_eq(components_of(testfw), "beta=" + beta);
}
END_TEST

int main()
{
    Suite *suite = suite_create("component_repository");

    TCase *failures = make_tcase("load_failures");
    tcase_add_loop_test(failures, test_load_failure_has_path_and_reason, 0,
                        static_cast<int>(bad_cases().size()));
    tcase_add_test(failures, test_every_failure_in_one_directory);
    tcase_add_test(failures, test_unreadable_file);
    suite_add_tcase(suite, failures);

    TCase *reporting = make_tcase("reporting");
    tcase_add_test(reporting, test_show_load_errors_none_still_records);
    tcase_add_test(reporting, test_show_load_errors_one_component);
    tcase_add_test(reporting, test_show_load_errors_whole_framework);
    tcase_add_test(reporting, test_show_load_errors_other_framework);
    tcase_add_test(reporting, test_show_load_errors_bad_names_told);
    tcase_add_test(reporting, test_failures_found_again_after_close);
    suite_add_tcase(suite, reporting);

    TCase *path = make_tcase("component_path");
    tcase_add_test(path, test_only_matching_file_names_are_candidates);
    tcase_add_test(path, test_stray_files_told_by_the_check);
    tcase_add_test(path, test_component_path_problems_told);
    tcase_add_test(path, test_relative_component_path);
    tcase_add_test(path, test_symlink_to_component_loads);
    tcase_add_test(path, test_first_directory_wins);
    tcase_add_test(path, test_home_components_by_default);
    tcase_add_test(path, test_tilde_in_path);
    tcase_add_test(path, test_path_from_environment);
    suite_add_tcase(suite, path);

    return run_suite(suite);
}
