// SPDX-License-Identifier: BSD-3-Clause
// Arrays handed to C callers (the frameworks' C APIs): malloc'd, so that C
// frees each string and then the array with free().  Not installed.
#ifndef MERIDIAN_OPAL_UTIL_C_ARRAYS_HPP
#define MERIDIAN_OPAL_UTIL_C_ARRAYS_HPP

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace meridian::util
{

// Frees the first `count` strings and the array; nullptr is ignored.
inline void free_c_strings(char **strings, std::size_t count)
{
    if (strings == nullptr) {
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        std::free(strings[i]);
    }
    std::free(strings);
}

// Copies of `values` in *out (nullptr for none).  false when memory ran out:
// nothing is left allocated and *out is nullptr.
inline bool to_c_strings(const std::vector<std::string> &values, char ***out)
{
    *out = nullptr;
    if (values.empty()) {
        return true;
    }
    auto **array = static_cast<char **>(std::calloc(values.size(), sizeof(char *)));
    if (array == nullptr) {
        return false;
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        array[i] = strdup(values[i].c_str());
        if (array[i] == nullptr) {
            free_c_strings(array, i);
            return false;
        }
    }
    *out = array;
    return true;
}

// A copy of `count` trivially copyable values in *out (nullptr for none);
// false when memory ran out.
template <typename T> bool to_c_array(const T *values, std::size_t count, T **out)
{
    *out = nullptr;
    if (count == 0) {
        return true;
    }
    *out = static_cast<T *>(std::malloc(count * sizeof(T)));
    if (*out == nullptr) {
        return false;
    }
    std::memcpy(*out, values, count * sizeof(T));
    return true;
}

} // namespace meridian::util

#endif
