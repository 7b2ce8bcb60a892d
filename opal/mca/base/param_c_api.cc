// SPDX-License-Identifier: BSD-3-Clause
// The C API of mca_base_param.h over the C++ registry.
#include <cstring>
#include <limits>
#include <utility>

#include "opal/mca/base/base_params.hpp"
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/c_boundary.hpp>

using namespace meridian;
using meridian::c_boundary;
using namespace meridian::mca;

extern "C" int meridian_mca_base_param_register(const char *framework, const char *component,
                                                const char *name, const char *help,
                                                mca_base_param_type_t type,
                                                const mca_base_param_enum_value_t *enumerators,
                                                int level, int flags, void *storage)
{
    return c_boundary("meridian_mca_base_param_register", [&]() -> int {
        if (framework == nullptr || type < MCA_BASE_PARAM_TYPE_BOOL ||
            type > MCA_BASE_PARAM_TYPE_LIST) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        ParamSpec spec;
        spec.framework = framework;
        spec.component = component != nullptr ? component : "";
        spec.name = name != nullptr ? name : "";
        spec.help = help != nullptr ? help : "";
        spec.type = static_cast<ParamType>(type);
        for (const auto *e = enumerators; e != nullptr && e->name != nullptr; ++e) {
            spec.enumerators.push_back(EnumValue{e->value, e->name});
        }
        spec.level = level;
        spec.flags = flags;
        spec.storage = storage;
        auto index = ParamRegistry::instance().register_param(std::move(spec));
        return index ? *index : index.error().status;
    });
}

extern "C" int
meridian_mca_base_component_param_register(const mca_base_component_t *component, const char *name,
                                           const char *help, mca_base_param_type_t type,
                                           const mca_base_param_enum_value_t *enumerators,
                                           int level, int flags, void *storage)
{
    return c_boundary("meridian_mca_base_component_param_register", [&]() -> int {
        if (component == nullptr || name == nullptr || *name == '\0') {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const std::string framework(component->framework_name,
                                    strnlen(component->framework_name, MCA_BASE_MAX_NAME_LEN + 1));
        const std::string component_name(
            component->component_name,
            strnlen(component->component_name, MCA_BASE_MAX_NAME_LEN + 1));
        return meridian_mca_base_param_register(framework.c_str(), component_name.c_str(), name,
                                                help, type, enumerators, level, flags, storage);
    });
}

extern "C" int meridian_mca_base_param_set_bounds(int index, double min, double max)
{
    return c_boundary("meridian_mca_base_param_set_bounds", [&]() -> int {
        // !(min <= max): also a NaN bound, which no value could meet.
        if (!(min <= max)) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto status = ParamRegistry::instance().set_bounds(index, min, max);
        return status ? MERIDIAN_SUCCESS : status.error().status;
    });
}

extern "C" int meridian_mca_base_param_register_synonym(int index, const char *framework,
                                                        const char *component, const char *name,
                                                        int flags)
{
    return c_boundary("meridian_mca_base_param_register_synonym", [&]() -> int {
        if (framework == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto status = ParamRegistry::instance().add_synonym(
            index,
            full_param_name(framework, component != nullptr ? component : "",
                            name != nullptr ? name : ""),
            flags);
        return status ? MERIDIAN_SUCCESS : status.error().status;
    });
}

extern "C" int meridian_mca_base_param_find(const char *full_name)
{
    return c_boundary("meridian_mca_base_param_find", [&]() -> int {
        if (full_name == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        ParamRegistry::instance().settle();
        const auto index = ParamRegistry::instance().find(full_name);
        return index ? *index : MERIDIAN_ERR_NOT_FOUND;
    });
}

extern "C" int meridian_mca_base_param_set_value(int index, const char *value)
{
    return c_boundary("meridian_mca_base_param_set_value", [&]() -> int {
        if (value == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto status = ParamRegistry::instance().set_from_api(index, value);
        return status ? MERIDIAN_SUCCESS : status.error().status;
    });
}

extern "C" int meridian_mca_base_param_value_string(int index, char *buf, size_t size)
{
    return c_boundary("meridian_mca_base_param_value_string", [&]() -> int {
        ParamRegistry::instance().settle();
        const Param *param = ParamRegistry::instance().param(index);
        if (param == nullptr) {
            return MERIDIAN_ERR_NOT_FOUND;
        }
        const std::string text = param->value_text();
        if (buf != nullptr && size > 0) {
            const std::size_t n = std::min(size - 1, text.size());
            std::memcpy(buf, text.data(), n);
            buf[n] = '\0';
        }
        return text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())
                   ? MERIDIAN_ERROR
                   : static_cast<int>(text.size());
    });
}
