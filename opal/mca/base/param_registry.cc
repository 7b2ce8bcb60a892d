// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/mca/base/param_registry.hpp>

#include <algorithm>
#include <cstddef>

#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::mca
{

namespace
{

// ASCII letters, digits and '_', whatever the program's locale: a name is
// also part of an environment variable's.
bool valid_name_part(std::string_view part)
{
    return std::all_of(part.begin(), part.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

// Room for one more item, so that the push_back after it cannot throw;
// grown by doubling, as push_back grows (reserve(size() + 1) would move the
// whole vector at every registration).
template <typename T> void reserve_one(std::vector<T> &items)
{
    if (items.size() == items.capacity()) {
        items.reserve(std::max<std::size_t>(8, 2 * items.size()));
    }
}

// The storage's current contents, which registration takes as the default.
Result<ParamValue> read_default(ParamType type, const void *storage, bool &is_null)
{
    is_null = false;
    switch (type) {
    case ParamType::boolean:
        return ParamValue{*static_cast<const bool *>(storage)};
    case ParamType::integer:
    case ParamType::enumeration:
        return ParamValue{static_cast<long long>(*static_cast<const int *>(storage))};
    case ParamType::unsigned_integer:
        return ParamValue{static_cast<unsigned long long>(*static_cast<const unsigned *>(storage))};
    case ParamType::size:
        return ParamValue{
            static_cast<unsigned long long>(*static_cast<const std::size_t *>(storage))};
    case ParamType::real:
        return ParamValue{*static_cast<const double *>(storage)};
    case ParamType::string: {
        const char *text = *static_cast<const char *const *>(storage);
        is_null = text == nullptr;
        return ParamValue{std::string(text != nullptr ? text : "")};
    }
    case ParamType::list: {
        std::vector<std::string> items;
        const char *const *array = *static_cast<const char *const *const *>(storage);
        for (; array != nullptr && *array != nullptr; ++array) {
            items.emplace_back(*array);
        }
        return ParamValue{items};
    }
    }
    return make_error(MERIDIAN_ERR_BAD_PARAM, "unknown parameter type");
}

} // namespace

std::string full_param_name(std::string_view framework, std::string_view component,
                            std::string_view name)
{
    std::string full(framework);
    if (!component.empty()) {
        full += "_";
        full += component;
    }
    if (!name.empty()) {
        full += "_";
        full += name;
    }
    return full;
}

std::string Param::value_text() const
{
    return value_is_null_ ? std::string() : format_value(rules_, value_);
}

void Param::write_storage()
{
    if (storage_ == nullptr) {
        return;
    }
    switch (rules_.type) {
    case ParamType::boolean:
        *static_cast<bool *>(storage_) = std::get<bool>(value_);
        break;
    case ParamType::integer:
    case ParamType::enumeration:
        *static_cast<int *>(storage_) = static_cast<int>(std::get<long long>(value_));
        break;
    case ParamType::unsigned_integer:
        *static_cast<unsigned *>(storage_) =
            static_cast<unsigned>(std::get<unsigned long long>(value_));
        break;
    case ParamType::size:
        *static_cast<std::size_t *>(storage_) =
            static_cast<std::size_t>(std::get<unsigned long long>(value_));
        break;
    case ParamType::real:
        *static_cast<double *>(storage_) = std::get<double>(value_);
        break;
    case ParamType::string:
        string_backing_ = std::get<std::string>(value_);
        *static_cast<const char **>(storage_) = value_is_null_ ? nullptr : string_backing_.c_str();
        break;
    case ParamType::list:
        list_backing_ = std::get<std::vector<std::string>>(value_);
        list_pointers_.clear();
        for (const auto &item : list_backing_) {
            list_pointers_.push_back(item.c_str());
        }
        list_pointers_.push_back(nullptr);
        *static_cast<const char *const **>(storage_) = list_pointers_.data();
        break;
    }
}

ParamRegistry &ParamRegistry::instance()
{
    static ParamRegistry registry;
    return registry;
}

Result<int> ParamRegistry::register_param(ParamSpec spec)
{
    settle();
    std::string full = full_param_name(spec.framework, spec.component, spec.name);
    const auto refuse = [&](const std::string &why) -> Error {
        report_error("cannot register MCA parameter " + util::quoted(full) + ": " + why);
        return make_error(MERIDIAN_ERR_BAD_PARAM, why);
    };
    if (spec.framework.empty() || !valid_name_part(spec.framework) ||
        !valid_name_part(spec.component) || !valid_name_part(spec.name) ||
        (spec.name.empty() && !spec.component.empty())) {
        return refuse("names are made of letters, digits and '_', and need a framework");
    }
    if (spec.storage == nullptr) {
        return refuse("no storage given");
    }
    if (spec.level < 1 || spec.level > 9) {
        return refuse("info level " + std::to_string(spec.level) + " is not between 1 and 9");
    }
    if (spec.type == ParamType::enumeration && spec.enumerators.empty()) {
        return refuse("an enum parameter needs named values");
    }

    Param *existing = nullptr;
    if (const auto it = by_name_.find(full); it != by_name_.end()) {
        existing = params_[static_cast<std::size_t>(it->second)].get();
        if (existing->full_name_ != full) {
            return refuse("the name is already a synonym of " + util::quoted(existing->full_name_));
        }
        if (existing->registered_ && existing->rules_.type != spec.type) {
            report_error("MCA parameter " + util::quoted(full) + " is already registered as " +
                         std::string(type_name(existing->rules_.type)) + ", not as " +
                         std::string(type_name(spec.type)));
            return make_error(MERIDIAN_ERR_EXISTS, "registered with another type");
        }
    }

    bool is_null = false;
    auto initial = read_default(spec.type, spec.storage, is_null);
    if (!initial) {
        return refuse(initial.error().message);
    }
    ValueRules rules{spec.type, std::move(spec.enumerators), std::nullopt, std::nullopt};
    if (spec.type == ParamType::enumeration) {
        const auto number = std::get<long long>(*initial);
        const bool listed = std::any_of(rules.enumerators.begin(), rules.enumerators.end(),
                                        [&](const EnumValue &e) { return e.value == number; });
        if (!listed) {
            return refuse("the default " + std::to_string(number) +
                          " is not one of its named values");
        }
    }

    // Everything that allocates is made before the registry changes, so a
    // registration that runs out of memory leaves the registry as it was
    // (and the next one finds no half-made parameter under the name).
    ParamValue default_value = *initial;
    ParamValue value = std::move(*initial);
    std::vector<int> &members = by_component_[spec.framework + "/" + spec.component];
    reserve_one(members);
    Param *param = existing;
    if (param == nullptr) {
        auto fresh = std::make_unique<Param>();
        fresh->index_ = static_cast<int>(params_.size());
        reserve_one(params_);
        by_name_.emplace(full, fresh->index_);
        // Nothing below allocates: the capacity is there.
        members.push_back(fresh->index_);
        params_.push_back(std::move(fresh));
        param = params_.back().get();
    } else if (param->framework_ != spec.framework || param->component_ != spec.component) {
        // The same full name, split another way ("a_b" + "c" vs "a" + "b_c").
        const auto before = by_component_.find(param->framework_ + "/" + param->component_);
        if (before != by_component_.end()) {
            std::erase(before->second, param->index_);
        }
        members.push_back(param->index_);
    }

    param->framework_ = std::move(spec.framework);
    param->component_ = std::move(spec.component);
    param->full_name_ = std::move(full);
    param->help_ = std::move(spec.help);
    param->rules_ = std::move(rules);
    param->level_ = spec.level;
    param->flags_ = spec.flags;
    param->storage_ = spec.storage;
    param->registered_ = true;
    param->frozen_ = false;
    param->default_value_ = std::move(default_value);
    param->default_is_null_ = is_null;
    param->value_ = std::move(value);
    param->value_is_null_ = is_null;
    param->source_ = SourceRef{};
    // Unset (the usual case): the default stands, and there is nothing to
    // hold back.  Set: resolved now and again at the next call, which says
    // what does not parse after any bounds given in between.
    const auto is_set = [this](const std::string &name) { return settings_.contains(name); };
    if (is_set(param->full_name_) ||
        std::any_of(param->synonyms_.begin(), param->synonyms_.end(),
                    [&](const Synonym &synonym) { return is_set(synonym.full_name); })) {
        held_ = param->index_;
        resolve(*param);
    }
    param->write_storage();
    return param->index_;
}

Status ParamRegistry::set_bounds(int index, std::optional<double> min, std::optional<double> max)
{
    if (index < 0 || static_cast<std::size_t>(index) >= params_.size()) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "no such parameter");
    }
    Param &param = *params_[static_cast<std::size_t>(index)];
    switch (param.rules_.type) {
    case ParamType::integer:
    case ParamType::unsigned_integer:
    case ParamType::size:
    case ParamType::real:
        break;
    default:
        return make_error(MERIDIAN_ERR_BAD_PARAM, "bounds apply to numbers only");
    }
    param.rules_.min = min;
    param.rules_.max = max;
    const bool held = held_ == index;
    settle(); // resolves a held parameter, this one included
    if (!held) {
        resolve(param);
    }
    return success();
}

void ParamRegistry::settle()
{
    if (!held_) {
        return;
    }
    const int index = *held_;
    held_.reset();
    Param &param = *params_[static_cast<std::size_t>(index)];
    if (!param.registered_) {
        return;
    }
    try {
        resolve(param);
    } catch (...) {
        held_ = index; // told at the next call instead
        throw;
    }
}

Status ParamRegistry::add_synonym(int index, const std::string &full_name, int flags)
{
    if (index < 0 || static_cast<std::size_t>(index) >= params_.size()) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "no such parameter");
    }
    if (full_name.empty() || !valid_name_part(full_name)) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "bad synonym name");
    }
    Param &param = *params_[static_cast<std::size_t>(index)];
    if (const auto it = by_name_.find(full_name); it != by_name_.end()) {
        if (it->second == index) {
            return success(); // registered again after a reopen
        }
        return make_error(MERIDIAN_ERR_EXISTS, full_name + " already names another parameter");
    }
    Synonym synonym{full_name, flags};
    reserve_one(param.synonyms_);
    by_name_.emplace(full_name, index);
    param.synonyms_.push_back(std::move(synonym)); // cannot throw: the capacity is there
    resolve(param);
    return success();
}

Param *ParamRegistry::lookup(std::string_view full_name)
{
    const auto it = by_name_.find(full_name);
    if (it == by_name_.end()) {
        return nullptr;
    }
    Param *param = params_[static_cast<std::size_t>(it->second)].get();
    return param->registered_ ? param : nullptr;
}

std::optional<int> ParamRegistry::find(std::string_view full_name) const
{
    const auto it = by_name_.find(full_name);
    if (it == by_name_.end() || !params_[static_cast<std::size_t>(it->second)]->registered_ ||
        params_[static_cast<std::size_t>(it->second)]->full_name_ != full_name) {
        return std::nullopt;
    }
    return it->second;
}

const Param *ParamRegistry::param(int index) const
{
    if (index < 0 || static_cast<std::size_t>(index) >= params_.size() ||
        !params_[static_cast<std::size_t>(index)]->registered_) {
        return nullptr;
    }
    return params_[static_cast<std::size_t>(index)].get();
}

std::vector<const Param *> ParamRegistry::params() const
{
    std::vector<const Param *> out;
    for (const auto &param : params_) {
        if (param->registered_) {
            out.push_back(param.get());
        }
    }
    return out;
}

void ParamRegistry::add_setting(const std::string &name, std::string value, SourceRef source)
{
    settle();
    settings_[name].push_back(
        Setting{std::move(value), std::move(source), ++arrivals_, false, false});
    if (Param *param = lookup(name)) {
        resolve(*param);
    }
}

void ParamRegistry::remove_settings(SourceKind kind)
{
    settle();
    std::vector<std::string> touched;
    for (auto &[name, list] : settings_) {
        const auto before = list.size();
        std::erase_if(list, [kind](const Setting &s) { return s.source.kind == kind; });
        if (list.size() != before) {
            touched.push_back(name);
        }
    }
    std::erase_if(settings_, [](const auto &entry) { return entry.second.empty(); });
    for (const auto &name : touched) {
        if (Param *param = lookup(name)) {
            resolve(*param);
        }
    }
}

Status ParamRegistry::set_from_api(int index, std::string_view value)
{
    settle();
    if (index < 0 || static_cast<std::size_t>(index) >= params_.size() ||
        !params_[static_cast<std::size_t>(index)]->registered_) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "no such parameter");
    }
    Param &param = *params_[static_cast<std::size_t>(index)];
    const auto parsed = parse_value(param.rules_, value);
    if (!parsed) {
        const std::string message = "bad value " + util::quoted(value) + " for MCA parameter " +
                                    param.full_name_ + " from the API: " + parsed.error().message +
                                    "; it keeps " + util::quoted(param.value_text());
        report_error(message);
        return make_error(MERIDIAN_ERR_BAD_PARAM, message);
    }
    if (param.frozen_) {
        const std::string message = "MCA parameter " + param.full_name_ +
                                    " cannot change while framework " + param.framework_ +
                                    " is open";
        report_error(message);
        return make_error(MERIDIAN_ERR_READ_ONLY, message);
    }
    auto &list = settings_[param.full_name_];
    std::erase_if(list, [](const Setting &s) { return s.source.kind == SourceKind::api; });
    SourceRef source;
    source.kind = SourceKind::api;
    list.push_back(Setting{std::string(value), source, ++arrivals_, false, false});
    resolve(param);
    return success();
}

void ParamRegistry::resolve(Param &param)
{
    struct Candidate {
        Setting *setting;
        const Synonym *synonym;
    };
    std::vector<Candidate> candidates;
    const auto gather = [&](const std::string &name, const Synonym *synonym) {
        if (const auto it = settings_.find(name); it != settings_.end()) {
            for (auto &setting : it->second) {
                candidates.push_back(Candidate{&setting, synonym});
            }
        }
    };
    gather(param.full_name_, nullptr);
    for (const auto &synonym : param.synonyms_) {
        gather(synonym.full_name, &synonym);
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate &a, const Candidate &b) {
        if (a.setting->source.rank() != b.setting->source.rank()) {
            return a.setting->source.rank() > b.setting->source.rank();
        }
        return a.setting->arrival > b.setting->arrival;
    });

    // A file line that may never apply is refused whether or not a higher
    // source hides it, so nothing is ignored in silence.
    const bool not_in_files = (param.flags_ & MCA_BASE_PARAM_FLAG_NOT_IN_FILES) != 0;
    if (not_in_files) {
        std::vector<Candidate> in_order = candidates;
        std::sort(in_order.begin(), in_order.end(), [](const Candidate &a, const Candidate &b) {
            return a.setting->arrival < b.setting->arrival;
        });
        for (const auto &candidate : in_order) {
            Setting &setting = *candidate.setting;
            if (setting.source.is_file() && !setting.reported) {
                setting.reported = true;
                report_error("MCA parameter " +
                             (candidate.synonym != nullptr ? candidate.synonym->full_name
                                                           : param.full_name_) +
                             " cannot be set in a file (" + setting.source.where() +
                             "); set it in the environment or on the command line");
            }
        }
    }

    ParamValue chosen = param.default_value_;
    bool chosen_null = param.default_is_null_;
    SourceRef chosen_source;
    Setting *winner = nullptr;
    for (const auto &candidate : candidates) {
        Setting &setting = *candidate.setting;
        const std::string &used_name =
            candidate.synonym != nullptr ? candidate.synonym->full_name : param.full_name_;
        if (not_in_files && setting.source.is_file()) {
            continue;
        }
        auto parsed = parse_value(param.rules_, setting.value);
        if (!parsed) {
            if (!setting.reported && held_ != param.index_) {
                setting.reported = true;
                report_error("bad value " + util::quoted(setting.value) + " for MCA parameter " +
                             used_name + " from " + setting.source.where() + ": " +
                             parsed.error().message);
            }
            continue;
        }
        if (!setting.warned) {
            if (candidate.synonym != nullptr &&
                (candidate.synonym->flags & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0) {
                report_warning("MCA parameter " + used_name + " (set in " + setting.source.where() +
                               ") is deprecated; use " + param.full_name_ + " instead");
            } else if ((param.flags_ & MCA_BASE_PARAM_FLAG_DEPRECATED) != 0) {
                report_warning("MCA parameter " + used_name + " (set in " + setting.source.where() +
                               ") is deprecated");
            }
        }
        chosen = std::move(*parsed);
        chosen_null = false;
        chosen_source = setting.source;
        winner = &setting;
        break;
    }

    if (param.frozen_ && (chosen != param.value_ || chosen_null != param.value_is_null_)) {
        if (winner != nullptr && !winner->warned) {
            report_error("MCA parameter " + param.full_name_ + " cannot change while framework " +
                         param.framework_ + " is open; the value from " + winner->source.where() +
                         " is ignored");
        }
        if (winner != nullptr) {
            winner->warned = true;
        }
        return;
    }
    // Only the warnings are settled: should the rules narrow later (bounds
    // set after registration), a value that stops parsing is still reported.
    if (winner != nullptr) {
        winner->warned = true;
    }
    param.value_ = std::move(chosen);
    param.value_is_null_ = chosen_null;
    param.source_ = std::move(chosen_source);
    param.write_storage();
}

void ParamRegistry::deregister_component(std::string_view framework, std::string_view component)
{
    settle();
    const auto it = by_component_.find(std::string(framework) + "/" + std::string(component));
    if (it == by_component_.end()) {
        return;
    }
    for (const int index : it->second) {
        Param &param = *params_[static_cast<std::size_t>(index)];
        param.registered_ = false;
        param.storage_ = nullptr;
    }
}

void ParamRegistry::set_frozen(std::string_view framework, bool frozen)
{
    settle();
    for (auto &param : params_) {
        if (param->framework_ == framework &&
            (param->flags_ & MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN) != 0) {
            param->frozen_ = frozen;
        }
    }
}

std::vector<std::string> ParamRegistry::known_names() const
{
    std::vector<std::string> names;
    for (const auto &[name, index] : by_name_) {
        if (params_[static_cast<std::size_t>(index)]->registered_) {
            names.push_back(name);
        }
    }
    return names;
}

std::vector<std::string> ParamRegistry::refused(std::string_view framework) const
{
    std::vector<std::string> names;
    for (const auto &[name, list] : settings_) {
        const auto it = by_name_.find(name);
        if (it == by_name_.end()) {
            continue;
        }
        const Param &param = *params_[static_cast<std::size_t>(it->second)];
        if (!param.registered_ || (!framework.empty() && param.framework_ != framework) ||
            std::none_of(list.begin(), list.end(), [](const Setting &s) { return s.reported; })) {
            continue;
        }
        names.push_back(param.full_name_);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

bool ParamRegistry::any_setting(const std::function<bool(std::string_view)> &wanted) const
{
    return std::any_of(settings_.begin(), settings_.end(),
                       [&](const auto &entry) { return wanted(entry.first); });
}

Status ParamRegistry::check_unknown(bool strict, const std::function<bool(std::string_view)> &skip)
{
    settle();
    const auto known = known_names();
    int unknown = 0;
    for (const auto &[name, list] : settings_) {
        if (lookup(name) != nullptr || skip(name)) {
            continue;
        }
        for (const auto &setting : list) {
            std::string message = "MCA parameter " + util::quoted(name) + " (set in " +
                                  setting.source.where() + ") is not registered by any component";
            // Names are lower case; MERIDIAN_MCA_CARTO_BASE_VERBOSE is the
            // usual slip in the environment, and is too far for edit distance.
            const std::string lower = util::to_lower(name);
            const auto suggestion = lookup(lower) != nullptr ? std::optional<std::string>(lower)
                                                             : util::closest_match(lower, known);
            if (suggestion) {
                message += "; did you mean " + *suggestion + "?";
                if (lower != name) {
                    message += " (parameter names are lower case)";
                }
            }
            ++unknown;
            report(strict ? Severity::error : Severity::warning, message);
        }
    }
    if (strict && unknown > 0) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::to_string(unknown) +
                              " unknown MCA parameter(s) with mca_base_strict_params set");
    }
    return success();
}

void ParamRegistry::clear()
{
    params_.clear();
    by_name_.clear();
    by_component_.clear();
    settings_.clear();
    arrivals_ = 0;
    held_.reset();
}

} // namespace meridian::mca
