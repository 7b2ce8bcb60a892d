// SPDX-License-Identifier: BSD-3-Clause
// Typed parameter values: parsing text from any source and formatting back.
#ifndef MERIDIAN_MCA_BASE_PARAM_VALUE_HPP
#define MERIDIAN_MCA_BASE_PARAM_VALUE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/result.hpp>

namespace meridian::mca
{

enum class ParamType {
    boolean = MCA_BASE_PARAM_TYPE_BOOL,
    integer = MCA_BASE_PARAM_TYPE_INT,
    unsigned_integer = MCA_BASE_PARAM_TYPE_UNSIGNED,
    size = MCA_BASE_PARAM_TYPE_SIZE,
    real = MCA_BASE_PARAM_TYPE_DOUBLE,
    string = MCA_BASE_PARAM_TYPE_STRING,
    enumeration = MCA_BASE_PARAM_TYPE_ENUM,
    list = MCA_BASE_PARAM_TYPE_LIST,
};

// The type's name as meridian_info prints it.
std::string_view type_name(ParamType type);

struct EnumValue {
    int value;
    std::string name;
};

// The parsing rules of one parameter.
struct ValueRules {
    ParamType type = ParamType::string;
    std::vector<EnumValue> enumerators; // ENUM: the allowed values; INT: aliases
    std::optional<double> min;
    std::optional<double> max;
};

using ParamVariant = std::variant<bool, long long, unsigned long long, double, std::string,
                                  std::vector<std::string>>;

// bool | signed (INT, ENUM) | unsigned (UNSIGNED, SIZE) | double | string | list
//
// A std::variant whose copies survive running out of memory: libstdc++ 12
// counts strings and vectors as never valueless, so when copying one of them
// throws inside the variant's own copy constructor, the half-made variant's
// destructor visits an index it never set (undefined; UBSan stops there).
// Copies are therefore made alternative by alternative (a throw there leaves
// nothing half made) and moved in, which cannot throw.
class ParamValue : public ParamVariant
{
  public:
    using ParamVariant::ParamVariant;
    ParamValue() = default;
    ParamValue(const ParamValue &other) : ParamVariant(copy_of(other)) {}
    ParamValue(ParamValue &&) noexcept = default;
    ParamValue &operator=(const ParamValue &other)
    {
        ParamVariant copy = copy_of(other);
        ParamVariant::operator=(std::move(copy));
        return *this;
    }
    ParamValue &operator=(ParamValue &&) noexcept = default;
    ~ParamValue() = default;

  private:
    static ParamVariant copy_of(const ParamValue &other)
    {
        return std::visit(
            [](const auto &alternative) {
                using T = std::decay_t<decltype(alternative)>;
                return ParamVariant(std::in_place_type<T>, alternative);
            },
            static_cast<const ParamVariant &>(other));
    }
};

// Parse text under the rules; the error message says what was expected
// ("expected an integer between 0 and 100 or one of none, error, ...").
Result<ParamValue> parse_value(const ValueRules &rules, std::string_view text);

// The canonical text of a value (enum values by name).
std::string format_value(const ValueRules &rules, const ParamValue &value);

// What a value of these rules looks like, for messages and help.
std::string expected_form(const ValueRules &rules);

} // namespace meridian::mca

#endif
