// SPDX-License-Identifier: BSD-3-Clause
// The registry of MCA parameters and of every setting made by any source.
//
// Settings (name = value from a file, the environment, the command line, the
// API) are kept apart from parameters: a setting may arrive before or after
// the component that registers its name is loaded.  Whenever either side
// changes, the affected parameter is resolved again: the setting of highest
// precedence whose value parses wins; a value that does not parse is reported
// once (parameter, source, value, expected form) and the next one is tried.
// Not thread-safe: used from one thread during start-up, as mca_base_param.h says.
#ifndef MERIDIAN_MCA_BASE_PARAM_REGISTRY_HPP
#define MERIDIAN_MCA_BASE_PARAM_REGISTRY_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/mca/base/param_source.hpp>
#include <meridian/opal/mca/base/param_value.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::mca
{

struct ParamSpec {
    std::string framework;
    std::string component; // empty: a framework-level parameter
    std::string name;      // empty with an empty component: the name is the framework's
    std::string help;
    ParamType type = ParamType::string;
    std::vector<EnumValue> enumerators;
    int level = 1;
    int flags = 0;
    void *storage = nullptr; // the caller's variable (see mca_base_param.h)
};

struct Synonym {
    std::string full_name;
    int flags = 0;
};

class Param
{
  public:
    int index() const { return index_; }
    const std::string &framework() const { return framework_; }
    const std::string &component() const { return component_; }
    const std::string &full_name() const { return full_name_; }
    const std::string &help() const { return help_; }
    ParamType type() const { return rules_.type; }
    const ValueRules &rules() const { return rules_; }
    int level() const { return level_; }
    int flags() const { return flags_; }
    const std::vector<Synonym> &synonyms() const { return synonyms_; }
    const SourceRef &source() const { return source_; }
    bool is_set() const { return !value_is_null_; } // false for a string that is unset
    const ParamValue &value() const { return value_; }
    std::string value_text() const;

  private:
    friend class ParamRegistry;

    void write_storage();

    int index_ = 0;
    std::string framework_, component_, full_name_, help_;
    ValueRules rules_;
    int level_ = 1;
    int flags_ = 0;
    void *storage_ = nullptr;
    bool registered_ = false;
    bool frozen_ = false;
    std::vector<Synonym> synonyms_;
    ParamValue default_value_;
    bool default_is_null_ = false;
    ParamValue value_;
    bool value_is_null_ = false;
    SourceRef source_;
    // Backing for string and list storage handed to C callers.
    std::string string_backing_;
    std::vector<std::string> list_backing_;
    std::vector<const char *> list_pointers_;
};

std::string full_param_name(std::string_view framework, std::string_view component,
                            std::string_view name);

class ParamRegistry
{
  public:
    static ParamRegistry &instance();

    Result<int> register_param(ParamSpec spec);
    Status set_bounds(int index, std::optional<double> min, std::optional<double> max);
    Status add_synonym(int index, const std::string &full_name, int flags);

    // Registered parameters only.
    std::optional<int> find(std::string_view full_name) const;
    const Param *param(int index) const;
    std::vector<const Param *> params() const;

    // A setting from a source other than the API; resolves the parameter it names.
    void add_setting(const std::string &name, std::string value, SourceRef source);
    // Drop every setting of one kind (param files are read again when the
    // parameters that list them change).
    void remove_settings(SourceKind kind);
    // Set from the program: refused, with a message, when the value does not
    // parse or the parameter is frozen.
    Status set_from_api(int index, std::string_view value);

    // A component's DSO is about to go: forget its parameters' storage.
    void deregister_component(std::string_view framework, std::string_view component);
    // READONLY_AFTER_OPEN parameters of a framework refuse changes while it is open.
    void set_frozen(std::string_view framework, bool frozen);

    // Whether a setting (environment, command line, files), registered or
    // not, has a name for which wanted() is true.
    bool any_setting(const std::function<bool(std::string_view)> &wanted) const;

    // The parameters (full names, sorted) of `framework` -- every registered
    // one when empty -- with a setting that was refused and told: a value that
    // does not parse, a file line for a parameter files may not set.  What
    // cannot be used fails the start-up that needs it.
    std::vector<std::string> refused(std::string_view framework = {}) const;

    // Report every setting whose name no parameter has.  Names for which
    // skip() is true are left out (their framework or components are not
    // registered yet, or another check covers them).  With strict, the
    // reports are errors and the result is an error.
    Status check_unknown(bool strict, const std::function<bool(std::string_view)> &skip);

    // The registration of the parameter registered last is complete: tell
    // its bad values now (with its bounds, if set_bounds came).  Any other
    // change does this first; a framework's and each component's parameter
    // registration end with it.
    void settle();

    // Forget everything (tests start from scratch).
    void clear();

  private:
    struct Setting {
        std::string value;
        SourceRef source;
        unsigned long arrival = 0;
        bool reported = false; // its problem (bad value, not allowed here) was told
        bool warned = false;   // deprecation or read-only refusal was told
    };

    void resolve(Param &param);
    std::vector<std::string> known_names() const;
    Param *lookup(std::string_view full_name);

    std::vector<std::unique_ptr<Param>> params_;
    std::map<std::string, int, std::less<>> by_name_; // full names and synonyms
    // "framework/component" -> its parameters, so unloading a component does
    // not scan every parameter.
    std::map<std::string, std::vector<int>, std::less<>> by_component_;
    std::map<std::string, std::vector<Setting>, std::less<>> settings_;
    unsigned long arrivals_ = 0;
    // The parameter registered last.  Its bounds and synonyms come in the
    // calls after register_param, so a value that does not parse is told
    // only when the next call shows the registration complete: the message
    // then names the parameter's own range, not its type's.
    std::optional<int> held_;
};

} // namespace meridian::mca

#endif
