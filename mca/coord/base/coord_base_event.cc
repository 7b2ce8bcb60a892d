// The coordinates-updated event: callbacks registered per plane (by name or
// CIDR, or for every plane), called by set_context with the planes whose
// coordinates changed, after the new coordinates are in place.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "mca/coord/base/coord_base_internal.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/util/error.h>

namespace meridian::coord
{

namespace
{

struct Registration {
    int handle = 0;
    std::string plane; // empty: every plane
    UpdatedCallback callback;
};

struct Registry {
    std::vector<Registration> entries;
    int next_handle = 0;
};

Registry &registry()
{
    static util::NoDestructor<Registry> instance;
    return instance.get();
}

} // namespace

int on_updated(std::string plane, UpdatedCallback callback)
{
    if (!callback) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    Registry &r = registry();
    const int handle = r.next_handle++;
    r.entries.push_back(Registration{handle, std::move(plane), std::move(callback)});
    return handle;
}

void remove_updated(int handle)
{
    auto &entries = registry().entries;
    std::erase_if(entries, [handle](const Registration &r) { return r.handle == handle; });
}

namespace detail
{

void fire_updated(const std::vector<std::string> &names, const std::vector<std::string> &cidrs)
{
    // A callback may register or remove callbacks: walk a copy of the
    // handles and look each up again before calling it.
    std::vector<int> handles;
    for (const auto &entry : registry().entries) {
        handles.push_back(entry.handle);
    }
    for (const int handle : handles) {
        auto &entries = registry().entries;
        const auto found =
            std::find_if(entries.begin(), entries.end(),
                         [handle](const Registration &r) { return r.handle == handle; });
        if (found == entries.end()) {
            continue;
        }
        std::vector<std::string> affected;
        for (size_t i = 0; i < names.size(); ++i) {
            if (found->plane.empty() || found->plane == names[i] ||
                (!cidrs[i].empty() && found->plane == cidrs[i])) {
                affected.push_back(names[i]);
            }
        }
        if (!affected.empty()) {
            // A copy: the callback may remove itself.
            const UpdatedCallback callback = found->callback;
            callback(std::span<const std::string>(affected));
        }
    }
}

} // namespace detail

} // namespace meridian::coord
