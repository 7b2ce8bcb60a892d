// SPDX-License-Identifier: BSD-3-Clause
// The public collective calls: argument checks, the element type and
// operation (QMP's choices: a float sum and an int sum accumulate wider),
// then the engine in qmp_coll.cc; and allgather for the QMP layer.
#include <cstdint>
#include <cstring>
#include <string>

#include "mca/qmp/qmp_coll.hpp"
#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"

namespace meridian::qmp
{

void combine_or(std::byte *acc, std::byte *theirs, std::size_t n, bool, QMP_binary_func)
{
    for (std::size_t i = 0; i < n; ++i) {
        acc[i] |= theirs[i];
    }
}

namespace
{

struct Sum {
    template <typename T> T operator()(T lower, T higher) const { return lower + higher; }
};
struct Max {
    template <typename T> T operator()(T lower, T higher) const
    {
        return higher > lower ? higher : lower;
    }
};
struct Min {
    template <typename T> T operator()(T lower, T higher) const
    {
        return higher < lower ? higher : lower;
    }
};
struct Xor {
    template <typename T> T operator()(T lower, T higher) const { return lower ^ higher; }
};

// Always op(lower, higher): a sum of floating-point values then rounds the
// same way on both partners of an exchange.
template <typename T, typename Op>
void combine_typed(std::byte *acc, std::byte *theirs, std::size_t n, bool mine_lower,
                   QMP_binary_func)
{
    auto *mine = reinterpret_cast<T *>(acc);
    const auto *other = reinterpret_cast<const T *>(theirs);
    const std::size_t count = n / sizeof(T);
    const Op op;
    if (mine_lower) {
        for (std::size_t i = 0; i < count; ++i) {
            mine[i] = op(mine[i], other[i]);
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            mine[i] = op(other[i], mine[i]);
        }
    }
}

// The user's function computes inout = inout (op) in.
void combine_user(std::byte *acc, std::byte *theirs, std::size_t n, bool mine_lower,
                  QMP_binary_func user)
{
    if (mine_lower) {
        user(acc, theirs);
    } else {
        user(theirs, acc);
        std::memcpy(acc, theirs, n);
    }
}

template <typename T, typename Op> constexpr Combine typed{combine_typed<T, Op>, nullptr};

// The communicator a call runs on, after the checks every call makes.
QMP_status_t check(const char *call, QMP_comm_t comm)
{
    if (QMP_status_t st = require_initialized(call); st != QMP_SUCCESS) {
        return st;
    }
    if (comm == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the communicator is NULL");
    }
    if (comm->coll == nullptr) {
        return set_error(QMP_ERROR,
                         std::string(call) + ": the communicator has no collectives set up");
    }
    return QMP_SUCCESS;
}

QMP_status_t null_value(const char *call, const char *what)
{
    return set_error(QMP_INVALID_ARG, std::string(call) + ": " + what + " is NULL");
}

// One value of T reduced as W (QMP sums a float as a double, an int as a
// double: W = int64_t gives the same results exactly).
template <typename W, typename Op, typename T>
QMP_status_t reduce_one(const char *call, QMP_comm_t comm, T *value)
{
    if (QMP_status_t st = check(call, comm); st != QMP_SUCCESS) {
        return st;
    }
    if (value == nullptr) {
        return null_value(call, "value");
    }
    ProfileScope profile;
    W wide = static_cast<W>(*value);
    const QMP_status_t st = allreduce(call, comm, &wide, sizeof wide, typed<W, Op>);
    if (st == QMP_SUCCESS) {
        *value = static_cast<T>(wide);
    }
    return st;
}

template <typename T>
QMP_status_t sum_array(const char *call, QMP_comm_t comm, T *values, int length)
{
    if (QMP_status_t st = check(call, comm); st != QMP_SUCCESS) {
        return st;
    }
    if (length < 0) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": length is " +
                                              std::to_string(length) + ", expected 0 or more");
    }
    if (values == nullptr && length > 0) {
        return null_value(call, "the array");
    }
    ProfileScope profile;
    return allreduce(call, comm, values, sizeof(T) * static_cast<std::size_t>(length),
                     typed<T, Sum>);
}

QMP_comm_t default_comm()
{
    return state().default_comm;
}

} // namespace

// Each member's bytes in its own slot, zeros elsewhere: an OR of all
// members' buffers is the gathered one.
QMP_status_t allgather(QMP_comm_t comm, const void *in, void *out, std::size_t each)
{
    if (comm == nullptr || comm->coll == nullptr) {
        return set_error(QMP_ERROR, "allgather: the communicator has no collectives set up");
    }
    const auto size = static_cast<std::size_t>(comm->size);
    std::size_t total = 0;
    if (__builtin_mul_overflow(size, each, &total)) {
        return set_error(QMP_MEMSIZE_TOOBIG, "allgather: " + std::to_string(each) +
                                                 " bytes from each of " + std::to_string(size) +
                                                 " nodes is larger than memory");
    }
    auto *bytes = static_cast<std::byte *>(out);
    std::memset(bytes, 0, total);
    std::memcpy(bytes + static_cast<std::size_t>(comm->rank) * each, in, each);
    return allreduce("allgather", comm, out, total, Combine{combine_or, nullptr});
}

} // namespace meridian::qmp

using namespace meridian::qmp;

extern "C" {

QMP_status_t QMP_comm_barrier(QMP_comm_t comm)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_comm_barrier";
        if (QMP_status_t st = check(call, comm); st != QMP_SUCCESS) {
            return st;
        }
        ProfileScope profile;
        return barrier_call(call, comm, -1);
    });
}

QMP_status_t QMP_barrier(void)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_barrier";
        if (QMP_status_t st = check(call, default_comm()); st != QMP_SUCCESS) {
            return st;
        }
        ProfileScope profile;
        return barrier_call(call, default_comm(), -1);
    });
}

QMP_status_t QMP_wait_for_barrier(QMP_s32_t milliseconds)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_wait_for_barrier";
        if (QMP_status_t st = check(call, default_comm()); st != QMP_SUCCESS) {
            return st;
        }
        ProfileScope profile;
        return barrier_call(call, default_comm(), milliseconds < 0 ? -1 : milliseconds);
    });
}

QMP_status_t QMP_comm_broadcast(QMP_comm_t comm, void *buffer, size_t nbytes)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_comm_broadcast";
        if (QMP_status_t st = check(call, comm); st != QMP_SUCCESS) {
            return st;
        }
        if (buffer == nullptr && nbytes > 0) {
            return null_value(call, "the buffer");
        }
        ProfileScope profile;
        return broadcast(call, comm, buffer, nbytes);
    });
}

QMP_status_t QMP_broadcast(void *buffer, size_t nbytes)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_broadcast";
        if (QMP_status_t st = check(call, default_comm()); st != QMP_SUCCESS) {
            return st;
        }
        if (buffer == nullptr && nbytes > 0) {
            return null_value(call, "the buffer");
        }
        ProfileScope profile;
        return broadcast(call, default_comm(), buffer, nbytes);
    });
}

QMP_status_t QMP_comm_sum_int(QMP_comm_t comm, int *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<std::int64_t, Sum>("QMP_comm_sum_int", comm, value); });
}
QMP_status_t QMP_sum_int(int *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<std::int64_t, Sum>("QMP_sum_int", default_comm(), value);
    });
}
QMP_status_t QMP_comm_sum_uint64_t(QMP_comm_t comm, uint64_t *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<std::uint64_t, Sum>("QMP_comm_sum_uint64_t", comm, value);
    });
}
QMP_status_t QMP_sum_uint64_t(uint64_t *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<std::uint64_t, Sum>("QMP_sum_uint64_t", default_comm(), value);
    });
}
QMP_status_t QMP_comm_sum_float(QMP_comm_t comm, float *value)
{
    return qmp_boundary(__func__,
                        [&] { return reduce_one<double, Sum>("QMP_comm_sum_float", comm, value); });
}
QMP_status_t QMP_sum_float(float *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Sum>("QMP_sum_float", default_comm(), value); });
}
QMP_status_t QMP_comm_sum_double(QMP_comm_t comm, double *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Sum>("QMP_comm_sum_double", comm, value); });
}
QMP_status_t QMP_sum_double(double *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Sum>("QMP_sum_double", default_comm(), value); });
}
QMP_status_t QMP_comm_sum_long_double(QMP_comm_t comm, long double *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<long double, Sum>("QMP_comm_sum_long_double", comm, value);
    });
}
QMP_status_t QMP_sum_long_double(long double *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<long double, Sum>("QMP_sum_long_double", default_comm(), value);
    });
}
// "Intermediate values kept in extended precision": accumulated as long double.
QMP_status_t QMP_comm_sum_double_extended(QMP_comm_t comm, double *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<long double, Sum>("QMP_comm_sum_double_extended", comm, value);
    });
}
QMP_status_t QMP_sum_double_extended(double *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<long double, Sum>("QMP_sum_double_extended", default_comm(), value);
    });
}

QMP_status_t QMP_comm_sum_float_array(QMP_comm_t comm, float value[], int length)
{
    return qmp_boundary(__func__,
                        [&] { return sum_array("QMP_comm_sum_float_array", comm, value, length); });
}
QMP_status_t QMP_sum_float_array(float value[], int length)
{
    return qmp_boundary(
        __func__, [&] { return sum_array("QMP_sum_float_array", default_comm(), value, length); });
}
QMP_status_t QMP_comm_sum_double_array(QMP_comm_t comm, double value[], int length)
{
    return qmp_boundary(
        __func__, [&] { return sum_array("QMP_comm_sum_double_array", comm, value, length); });
}
QMP_status_t QMP_sum_double_array(double value[], int length)
{
    return qmp_boundary(
        __func__, [&] { return sum_array("QMP_sum_double_array", default_comm(), value, length); });
}
QMP_status_t QMP_comm_sum_long_double_array(QMP_comm_t comm, long double value[], int length)
{
    return qmp_boundary(
        __func__, [&] { return sum_array("QMP_comm_sum_long_double_array", comm, value, length); });
}
QMP_status_t QMP_sum_long_double_array(long double value[], int length)
{
    return qmp_boundary(__func__, [&] {
        return sum_array("QMP_sum_long_double_array", default_comm(), value, length);
    });
}

QMP_status_t QMP_comm_max_float(QMP_comm_t comm, float *value)
{
    return qmp_boundary(__func__,
                        [&] { return reduce_one<float, Max>("QMP_comm_max_float", comm, value); });
}
QMP_status_t QMP_max_float(float *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<float, Max>("QMP_max_float", default_comm(), value); });
}
QMP_status_t QMP_comm_max_double(QMP_comm_t comm, double *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Max>("QMP_comm_max_double", comm, value); });
}
QMP_status_t QMP_max_double(double *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Max>("QMP_max_double", default_comm(), value); });
}
QMP_status_t QMP_comm_min_float(QMP_comm_t comm, float *value)
{
    return qmp_boundary(__func__,
                        [&] { return reduce_one<float, Min>("QMP_comm_min_float", comm, value); });
}
QMP_status_t QMP_min_float(float *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<float, Min>("QMP_min_float", default_comm(), value); });
}
QMP_status_t QMP_comm_min_double(QMP_comm_t comm, double *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Min>("QMP_comm_min_double", comm, value); });
}
QMP_status_t QMP_min_double(double *value)
{
    return qmp_boundary(
        __func__, [&] { return reduce_one<double, Min>("QMP_min_double", default_comm(), value); });
}

QMP_status_t QMP_comm_xor_ulong(QMP_comm_t comm, unsigned long *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<unsigned long, Xor>("QMP_comm_xor_ulong", comm, value);
    });
}
QMP_status_t QMP_xor_ulong(unsigned long *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<unsigned long, Xor>("QMP_xor_ulong", default_comm(), value);
    });
}
QMP_status_t QMP_global_xor(long *value)
{
    return qmp_boundary(__func__, [&] {
        return reduce_one<unsigned long, Xor>("QMP_global_xor", default_comm(), value);
    });
}

QMP_status_t QMP_comm_alltoall(QMP_comm_t comm, char *recvbuffer, char *sendbuffer, int count)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_comm_alltoall";
        if (QMP_status_t st = check(call, comm); st != QMP_SUCCESS) {
            return st;
        }
        if (count < 0) {
            return set_error(QMP_INVALID_ARG, std::string(call) + ": count is " +
                                                  std::to_string(count) + ", expected 0 or more");
        }
        if (count > 0 && (recvbuffer == nullptr || sendbuffer == nullptr)) {
            return null_value(call, "a buffer");
        }
        ProfileScope profile;
        return alltoall(call, comm, recvbuffer, sendbuffer, static_cast<std::size_t>(count));
    });
}

QMP_status_t QMP_comm_binary_reduction(QMP_comm_t comm, void *lbuffer, size_t buflen,
                                       QMP_binary_func bfunc)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_comm_binary_reduction";
        if (QMP_status_t st = check(call, comm); st != QMP_SUCCESS) {
            return st;
        }
        if (bfunc == nullptr) {
            return null_value(call, "the function");
        }
        if (lbuffer == nullptr && buflen > 0) {
            return null_value(call, "the buffer");
        }
        ProfileScope profile;
        return allreduce(call, comm, lbuffer, buflen, Combine{combine_user, bfunc});
    });
}

QMP_status_t QMP_binary_reduction(void *lbuffer, size_t buflen, QMP_binary_func bfunc)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_binary_reduction";
        if (QMP_status_t st = check(call, default_comm()); st != QMP_SUCCESS) {
            return st;
        }
        if (bfunc == nullptr) {
            return null_value(call, "the function");
        }
        if (lbuffer == nullptr && buflen > 0) {
            return null_value(call, "the buffer");
        }
        ProfileScope profile;
        return allreduce(call, default_comm(), lbuffer, buflen, Combine{combine_user, bfunc});
    });
}

} // extern "C"
