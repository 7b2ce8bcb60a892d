// SPDX-License-Identifier: BSD-3-Clause
// The exchange transports publish their addresses through: the datastore
// (PMIx under a PMIx launcher, this process's own table when alone), with
// keys scoped to msg so they never meet another framework's, and to the
// session (msg_modex.hpp).
#include <cstring>
#include <string>
#include <vector>

#include "mca/msg/base/msg_modex.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

namespace ds = meridian::datastore;

// This process's msg sessions so far (each start of the transports).
unsigned session = 0;

std::string scoped(const char *key)
{
    // The first session's keys as they always were; a later one's carry its
    // number.
    return session <= 1 ? std::string("meridian.msg.") + key
                        : "meridian.msg." + std::to_string(session) + "." + key;
}

// meridian_mca_msg_base_modex_get's body.
int modex_get(int rank, const char *key, void *data, size_t *len)
{
    if (key == nullptr || len == nullptr || rank < 0 || (data == nullptr && *len > 0)) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    auto store = ds::store();
    if (!store) {
        meridian::report_error(store.error().message);
        return store.error().status;
    }
    const ds::ProcId proc{(*store)->self().nspace, static_cast<std::uint32_t>(rank)};
    auto value = (*store)->get(proc, scoped(key));
    if (!value) {
        return MERIDIAN_ERR_NOT_FOUND;
    }
    const auto *bytes = std::get_if<ds::Bytes>(&*value);
    if (bytes == nullptr) {
        return MERIDIAN_ERR_NOT_FOUND;
    }
    const size_t capacity = *len;
    *len = bytes->size();
    if (bytes->size() > capacity) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (!bytes->empty()) {
        std::memcpy(data, bytes->data(), bytes->size());
    }
    return MERIDIAN_SUCCESS;
}

} // namespace

void meridian::msg::modex::begin_session()
{
    ++session;
}

extern "C" {

int meridian_mca_msg_base_modex_put(const char *key, const void *data, size_t len)
{
    return meridian::c_boundary(__func__, [&]() -> int {
        if (key == nullptr || (data == nullptr && len > 0)) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        auto store = ds::store();
        if (!store) {
            meridian::report_error(store.error().message);
            return store.error().status;
        }
        const auto *bytes = static_cast<const std::uint8_t *>(data);
        auto put = (*store)->put(scoped(key), ds::Bytes(bytes, bytes + len));
        if (!put) {
            meridian::report_error(put.error().message);
            return put.error().status;
        }
        return MERIDIAN_SUCCESS;
    });
}

int meridian_mca_msg_base_modex_exchange(void)
{
    return meridian::c_boundary(__func__, [&]() -> int {
        auto store = ds::store();
        if (!store) {
            meridian::report_error(store.error().message);
            return store.error().status;
        }
        for (auto step : {&ds::Store::commit, &ds::Store::fence}) {
            if (auto done = ((**store).*step)(); !done) {
                meridian::report_error(done.error().message);
                return done.error().status;
            }
        }
        return MERIDIAN_SUCCESS;
    });
}

int meridian_mca_msg_base_modex_get(int rank, const char *key, void *data, size_t *len)
{
    return meridian::c_boundary(__func__, [&] { return modex_get(rank, key, data, len); });
}

} // extern "C"
