// SPDX-License-Identifier: BSD-3-Clause
// What the datastore's PMIx backend lends the rest of the library: a value
// as PMIx's own type, exactly as the PMIx store publishes it.  Built only
// with PMIx; not installed.
#ifndef MERIDIAN_RUNTIME_DATASTORE_PMIX_HPP
#define MERIDIAN_RUNTIME_DATASTORE_PMIX_HPP

#include <pmix_common.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include <meridian/opal/runtime/datastore.hpp>

namespace meridian::datastore
{

// PMIx's values are allocated with malloc, as its macros do, so that
// PMIx frees them.  Each throws std::bad_alloc.
// `count` zeroed elements (nullptr for none).
template <typename T> T *zeroed(std::size_t count)
{
    if (count == 0) {
        return nullptr;
    }
    void *memory = std::calloc(count, sizeof(T));
    if (memory == nullptr) {
        throw std::bad_alloc();
    }
    return static_cast<T *>(memory);
}

inline char *copy_text(const std::string &text)
{
    char *copy = strdup(text.c_str());
    if (copy == nullptr) {
        throw std::bad_alloc();
    }
    return copy;
}

// An empty (zeroed) array of `count` elements of `type` as `out`.
template <typename T> T *start_array(pmix_value_t &out, pmix_data_type_t type, std::size_t count)
{
    auto *array = zeroed<pmix_data_array_t>(1);
    array->type = type;
    out.type = PMIX_DATA_ARRAY;
    out.data.darray = array;
    array->array = zeroed<T>(count);
    array->size = count;
    return static_cast<T *>(array->array);
}

// Fill a zeroed `info` with `key` and `value` (datastore_pmix.cc says which
// PMIx type each value becomes).  Allocated with malloc as PMIx's macros do,
// so PMIX_INFO_DESTRUCT frees it, also when this fails half-way.  Errors: a
// key longer than PMIx takes, info lists nested too deep, a coordinate of
// no dimensions.  Throws std::bad_alloc.
Status to_pmix_info(pmix_info_t &info, std::string_view key, const Value &value);

} // namespace meridian::datastore

#endif
