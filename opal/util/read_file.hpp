// SPDX-License-Identifier: BSD-3-Clause
// The one way Meridian reads an input file (param files, --tune files,
// fabric files, carto files): whole, bounded and checked.
//
// A file is read to its end with every read checked, so a file that fails
// part-way (/proc/self/mem, a disk error) is an error rather than a text
// applied in part; and no more than `limit` bytes are read, so a device
// without a size (/dev/zero) cannot fill the memory.
#ifndef MERIDIAN_UTIL_READ_FILE_HPP
#define MERIDIAN_UTIL_READ_FILE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstddef>
#include <string>

#include <meridian/opal/util/result.hpp>

namespace meridian::util
{

// The bytes of the file at `path`, at most `limit` of them.  The error's
// message is the reason alone, for the caller to put after its own words
// ("cannot read the fabric file PATH: " + message):
//   the system's text for open's or read's errno ("No such file or
//   directory", "Input/output error"), "Is a directory", or
//   "File too large (a WHAT is at most N MiB)"
// with status MERIDIAN_ERR_NOT_FOUND when the file does not exist and
// MERIDIAN_ERR_IO otherwise.
Result<std::string> read_file(const std::string &path, std::size_t limit, const char *what);

// Limits in bytes, one per kind of file; each far above any real file.
inline constexpr std::size_t kParamFileLimit = std::size_t{16} << 20;
inline constexpr std::size_t kFabricFileLimit = std::size_t{64} << 20;
inline constexpr std::size_t kCartoFileLimit = std::size_t{256} << 20;

} // namespace meridian::util

#endif
