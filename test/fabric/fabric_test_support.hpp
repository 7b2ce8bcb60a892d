// SPDX-License-Identifier: BSD-3-Clause
// What the fabric tests share: parse under a fixed path, the error message
// or "parsed without error", and structural equality of two fabrics (every
// plane, subnet, switch, node and NIC, in order).
#ifndef MERIDIAN_TEST_FABRIC_FABRIC_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_FABRIC_FABRIC_TEST_SUPPORT_HPP

#include <algorithm>
#include <string>
#include <string_view>

#include "test/support/meridian_test.hpp"
#include <meridian/opal/class/fabric.hpp>

namespace fabric_test
{

using meridian::Result;
using meridian::fabric::Fabric;

inline constexpr std::string_view test_path = "t.fabric";

inline Result<Fabric> parse(std::string_view text)
{
    return meridian::fabric::parse_fabric(text, test_path);
}

template <typename T> std::string error_of(const Result<T> &result)
{
    return result ? std::string("parsed without error") : result.error().message;
}

inline bool same_fabric(const Fabric &a, const Fabric &b)
{
    return a.name == b.name && std::ranges::equal(a.planes(), b.planes()) &&
           std::ranges::equal(a.subnets(), b.subnets()) &&
           std::ranges::equal(a.switches(), b.switches()) &&
           std::ranges::equal(a.nodes(), b.nodes()) && std::ranges::equal(a.nics(), b.nics());
}

} // namespace fabric_test

#endif
