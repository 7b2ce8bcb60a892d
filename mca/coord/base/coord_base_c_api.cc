// SPDX-License-Identifier: BSD-3-Clause
// The C face of the coord queries (base.h): the C++ calls, their errors
// reported, their results copied into malloc'd arrays the caller frees.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "opal/util/c_arrays.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace
{

using namespace meridian;

std::string_view text_or_empty(const char *text)
{
    return text == nullptr ? std::string_view() : text;
}

int fail(const Error &error)
{
    report_error(error.message);
    return error.status;
}

int no_memory()
{
    report_error("coord: out of memory while handing out a query's answer");
    return MERIDIAN_ERR_OUT_OF_RESOURCE;
}

int uint32_array(const std::vector<std::uint32_t> &values, uint32_t **out, size_t *count)
{
    *count = 0;
    if (!util::to_c_array(values.data(), values.size(), out)) {
        return no_memory();
    }
    *count = values.size();
    return MERIDIAN_SUCCESS;
}

int string_array(const std::vector<std::string> &values, char ***out, size_t *count)
{
    *count = 0;
    if (!util::to_c_strings(values, out)) {
        return no_memory();
    }
    *count = values.size();
    return MERIDIAN_SUCCESS;
}

// A malloc'd copy, or null (the caller reports no_memory).
char *c_string(const std::string &text)
{
    return strdup(text.c_str());
}

void free_plane_nics(meridian_coord_plane_nics_t *planes, size_t count)
{
    if (planes == nullptr) {
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        std::free(planes[i].plane);
        util::free_c_strings(planes[i].nics, planes[i].count);
    }
    std::free(planes);
}

void free_plane_shapes(meridian_coord_plane_shape_t *shapes, size_t count)
{
    if (shapes == nullptr) {
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        std::free(shapes[i].plane);
        std::free(shapes[i].shape);
    }
    std::free(shapes);
}

// Through the C reporter, which never throws: called before the guard.
int missing(const char *call, const char *argument)
{
    meridian_report(MERIDIAN_SEVERITY_ERROR, "%s: %s is NULL", call, argument);
    return MERIDIAN_ERR_BAD_PARAM;
}

} // namespace

extern "C" {

int meridian_coord_get_coordinates(uint32_t rank, const char *plane, meridian_coord_view_t view,
                                   meridian_coord_t **coords, size_t *count)
{
    if (coords == nullptr || count == nullptr) {
        return missing("meridian_coord_get_coordinates", coords == nullptr ? "coords" : "count");
    }
    *coords = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        auto result = coord::coordinates(rank, text_or_empty(plane), view);
        if (!result) {
            return fail(result.error());
        }
        if (result->empty()) {
            return static_cast<int>(MERIDIAN_SUCCESS);
        }
        meridian_coord_t *array = meridian_coord_create(result->size());
        if (array == nullptr) {
            return no_memory();
        }
        for (size_t i = 0; i < result->size(); ++i) {
            if (to_c((*result)[i], &array[i]) != MERIDIAN_SUCCESS) {
                meridian_coord_free(array, result->size());
                return no_memory();
            }
        }
        *coords = array;
        *count = result->size();
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int meridian_coord_get_dims(const char *plane, meridian_coord_view_t view, uint32_t **dims,
                            size_t *count)
{
    if (dims == nullptr || count == nullptr) {
        return missing("meridian_coord_get_dims", dims == nullptr ? "dims" : "count");
    }
    *dims = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        auto result = coord::dims(text_or_empty(plane), view);
        return result ? uint32_array(*result, dims, count) : fail(result.error());
    });
}

int meridian_coord_get_planes(char ***planes, size_t *count)
{
    if (planes == nullptr || count == nullptr) {
        return missing("meridian_coord_get_planes", planes == nullptr ? "planes" : "count");
    }
    *planes = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        if (coord::context() == nullptr) {
            // planes() answers none; the C caller is told why.
            if (const Error *failure = coord::placement_failure()) {
                return fail(Error{failure->status,
                                  "no network coordinates for the job: " + failure->message});
            }
            return fail(Error{MERIDIAN_ERR_NOT_INITIALIZED,
                              "no network coordinates yet: no fabric and job have been placed "
                              "(coord set_context)"});
        }
        return string_array(coord::planes(), planes, count);
    });
}

int meridian_coord_get_nics(const char *plane, char ***nics, size_t *count)
{
    if (nics == nullptr || count == nullptr) {
        return missing("meridian_coord_get_nics", nics == nullptr ? "nics" : "count");
    }
    *nics = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        const std::string_view wanted = text_or_empty(plane);
        auto lists = coord::nics(wanted);
        if (!lists) {
            return fail(lists.error());
        }
        if (!wanted.empty()) {
            return string_array(lists->front(), nics, count);
        }
        if (lists->size() != 1) {
            const auto names = coord::planes();
            return fail(Error{MERIDIAN_ERR_BAD_PARAM,
                              "meridian_coord_get_nics needs a plane when the fabric has " +
                                  std::to_string(names.size()) + " (planes: " +
                                  (names.empty() ? std::string("none") : util::join(names, ", ")) +
                                  "); meridian_coord_get_plane_nics gives each plane's NICs"});
        }
        auto &only = lists->front();
        only.erase(only.begin()); // the plane's name
        return string_array(only, nics, count);
    });
}

int meridian_coord_get_endpoints(uint32_t rank, char ***endpoints, size_t *count)
{
    if (endpoints == nullptr || count == nullptr) {
        return missing("meridian_coord_get_endpoints",
                       endpoints == nullptr ? "endpoints" : "count");
    }
    *endpoints = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        auto result = coord::endpoints(rank);
        return result ? string_array(*result, endpoints, count) : fail(result.error());
    });
}

int meridian_coord_get_shape(const char *plane, meridian_coord_view_t view, uint32_t **shape,
                             size_t *dims)
{
    if (shape == nullptr || dims == nullptr) {
        return missing("meridian_coord_get_shape", shape == nullptr ? "shape" : "dims");
    }
    *shape = nullptr;
    *dims = 0;
    return c_boundary(__func__, [&] {
        auto result = coord::shape(text_or_empty(plane), view);
        return result ? uint32_array(*result, shape, dims) : fail(result.error());
    });
}

int meridian_coord_get_cost(uint32_t from, uint32_t to, uint64_t *cost)
{
    if (cost == nullptr) {
        return missing("meridian_coord_get_cost", "cost");
    }
    *cost = 0;
    return c_boundary(__func__, [&] {
        auto result = coord::cost(from, to);
        if (!result) {
            return fail(result.error());
        }
        *cost = *result;
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int meridian_coord_get_plane_nics(meridian_coord_plane_nics_t **planes, size_t *count)
{
    if (planes == nullptr || count == nullptr) {
        return missing("meridian_coord_get_plane_nics", planes == nullptr ? "planes" : "count");
    }
    *planes = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        auto lists = coord::nics();
        if (!lists) {
            return fail(lists.error());
        }
        if (lists->empty()) {
            return static_cast<int>(MERIDIAN_SUCCESS);
        }
        auto *array = static_cast<meridian_coord_plane_nics_t *>(
            std::calloc(lists->size(), sizeof(meridian_coord_plane_nics_t)));
        if (array == nullptr) {
            return no_memory();
        }
        for (size_t i = 0; i < lists->size(); ++i) {
            auto &list = (*lists)[i];
            array[i].plane = c_string(list.front());
            list.erase(list.begin());
            if (array[i].plane == nullptr ||
                string_array(list, &array[i].nics, &array[i].count) != MERIDIAN_SUCCESS) {
                free_plane_nics(array, i + 1);
                return no_memory();
            }
        }
        *planes = array;
        *count = lists->size();
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

void meridian_coord_plane_nics_free(meridian_coord_plane_nics_t *planes, size_t count)
{
    free_plane_nics(planes, count);
}

int meridian_coord_get_shapes(meridian_coord_view_t view, meridian_coord_plane_shape_t **shapes,
                              size_t *count)
{
    if (shapes == nullptr || count == nullptr) {
        return missing("meridian_coord_get_shapes", shapes == nullptr ? "shapes" : "count");
    }
    *shapes = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        auto all = coord::shapes(view);
        if (!all) {
            return fail(all.error());
        }
        const auto names = coord::planes();
        if (all->empty() || names.size() != all->size()) {
            return static_cast<int>(MERIDIAN_SUCCESS);
        }
        auto *array = static_cast<meridian_coord_plane_shape_t *>(
            std::calloc(all->size(), sizeof(meridian_coord_plane_shape_t)));
        if (array == nullptr) {
            return no_memory();
        }
        for (size_t i = 0; i < all->size(); ++i) {
            array[i].plane = c_string(names[i]);
            if (array[i].plane == nullptr ||
                uint32_array((*all)[i], &array[i].shape, &array[i].dims) != MERIDIAN_SUCCESS) {
                free_plane_shapes(array, i + 1);
                return no_memory();
            }
        }
        *shapes = array;
        *count = all->size();
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

void meridian_coord_plane_shapes_free(meridian_coord_plane_shape_t *shapes, size_t count)
{
    free_plane_shapes(shapes, count);
}

int meridian_coord_get_nic(uint32_t rank, const char *nic, char **name, char **plane)
{
    if (nic == nullptr) {
        return missing("meridian_coord_get_nic", "nic");
    }
    if (name != nullptr) {
        *name = nullptr;
    }
    if (plane != nullptr) {
        *plane = nullptr;
    }
    return c_boundary(__func__, [&] {
        auto found = coord::find_nic(nic, rank);
        if (!found) {
            return fail(found.error());
        }
        const auto &fab = *coord::context()->fabric;
        char *full = name != nullptr ? c_string(coord::nic_name(fab, *found)) : nullptr;
        char *on =
            plane != nullptr ? c_string(fab.planes()[fab.nics()[*found].plane].name) : nullptr;
        if ((name != nullptr && full == nullptr) || (plane != nullptr && on == nullptr)) {
            std::free(full);
            std::free(on);
            return no_memory();
        }
        if (name != nullptr) {
            *name = full;
        }
        if (plane != nullptr) {
            *plane = on;
        }
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int meridian_coord_get_nic_coordinate(uint32_t rank, const char *nic, meridian_coord_view_t view,
                                      meridian_coord_t **coord)
{
    if (nic == nullptr || coord == nullptr) {
        return missing("meridian_coord_get_nic_coordinate", nic == nullptr ? "nic" : "coord");
    }
    *coord = nullptr;
    return c_boundary(__func__, [&] {
        auto result = coord::coordinate_of_nic(nic, rank, view);
        if (!result) {
            return fail(result.error());
        }
        meridian_coord_t *one = meridian_coord_create(1);
        if (one == nullptr) {
            return no_memory();
        }
        if (to_c(*result, one) != MERIDIAN_SUCCESS) {
            meridian_coord_free(one, 1);
            return no_memory();
        }
        *coord = one;
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int meridian_coord_get_nic_shape(uint32_t rank, const char *nic, meridian_coord_view_t view,
                                 uint32_t **shape, size_t *dims)
{
    if (nic == nullptr || shape == nullptr || dims == nullptr) {
        return missing("meridian_coord_get_nic_shape", nic == nullptr     ? "nic"
                                                       : shape == nullptr ? "shape"
                                                                          : "dims");
    }
    *shape = nullptr;
    *dims = 0;
    return c_boundary(__func__, [&] {
        auto found = coord::find_nic(nic, rank);
        if (!found) {
            return fail(found.error());
        }
        const auto &fab = *coord::context()->fabric;
        auto result = coord::shape(fab.planes()[fab.nics()[*found].plane].name, view);
        return result ? uint32_array(*result, shape, dims) : fail(result.error());
    });
}

int meridian_coord_get_nic_endpoints(uint32_t rank, const char *nic, char ***endpoints,
                                     size_t *count)
{
    if (nic == nullptr || endpoints == nullptr || count == nullptr) {
        return missing("meridian_coord_get_nic_endpoints", nic == nullptr         ? "nic"
                                                           : endpoints == nullptr ? "endpoints"
                                                                                  : "count");
    }
    *endpoints = nullptr;
    *count = 0;
    return c_boundary(__func__, [&] {
        auto result = coord::endpoints_on_nic(rank, nic);
        return result ? string_array(*result, endpoints, count) : fail(result.error());
    });
}

int meridian_coord_register_updated(const char *plane, meridian_coord_updated_fn fn, void *context,
                                    int *handle)
{
    if (fn == nullptr || handle == nullptr) {
        return missing("meridian_coord_register_updated", fn == nullptr ? "fn" : "handle");
    }
    *handle = -1;
    return c_boundary(__func__, [&] {
        const int h = coord::on_updated(std::string(text_or_empty(plane)),
                                        [fn, context](std::span<const std::string> planes) {
                                            std::vector<const char *> names;
                                            names.reserve(planes.size());
                                            for (const auto &name : planes) {
                                                names.push_back(name.c_str());
                                            }
                                            fn(names.data(), names.size(), context);
                                        });
        if (h < 0) {
            return h;
        }
        *handle = h;
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int meridian_coord_deregister_updated(int handle)
{
    return c_boundary(__func__, [handle] {
        if (handle < 0) {
            report_error("meridian_coord_deregister_updated: " + std::to_string(handle) +
                         " is not a handle");
            return MERIDIAN_ERR_BAD_PARAM;
        }
        meridian::coord::remove_updated(handle);
        return MERIDIAN_SUCCESS;
    });
}

} // extern "C"
