// SPDX-License-Identifier: BSD-3-Clause
// meridian_netmap's output: an allocated job as a table or as JSON, written
// as it is made (a million processes never sit in memory as text).
#ifndef MERIDIAN_TOOLS_NETMAP_OUTPUT_HPP
#define MERIDIAN_TOOLS_NETMAP_OUTPUT_HPP

#include <cstdio>
#include <string>

#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/class/coordinate.h>
#include <meridian/opal/util/result.hpp>

namespace meridian::netmap_tool
{

// Text appended to a buffer that goes to a stream whenever it grows past a
// chunk.  A write error is remembered; later writes are dropped.
class StreamOut
{
  public:
    explicit StreamOut(std::FILE *stream) : stream_(stream) {}
    StreamOut(const StreamOut &) = delete;
    StreamOut &operator=(const StreamOut &) = delete;

    std::string &text() { return buffer_; }
    // Call after each record: writes the buffer once it is big enough.
    void record_done()
    {
        if (buffer_.size() >= chunk) {
            flush();
        }
    }
    // Write what is left and flush the stream.  False (errno set) when any
    // write failed.
    bool finish();

  private:
    static constexpr std::size_t chunk = 1 << 16;
    void flush();

    std::FILE *stream_;
    std::string buffer_;
    bool failed_ = false;
};

// The job's requests as served, then one line per process, columns aligned:
// rank, node, each request's ports (PMIx's list form, "32000-32001"; its
// devices for a device request; "-" for none), the NICs nearest first, and
// the coordinates in `view`, one per NIC, "PLANE(x,y,z)".
// Errors: the coordinates could not be had (coord's message).
Status write_table(const mca_pnet_job &job, meridian_coord_view_t view, StreamOut &out);

// {"procs":[{"rank":0,"node":"node01","ports":{"ID":[32000,32001]},
//   "nics":["eth0",...],"coords":[{"plane":"data","view":"logical",
//   "coord":[0,0,0]}]}, ...],
//  "requests":[{"id":..,"type":..,"plane":..,"endpts":..,"qos":..,
//   "bandwidth_mbps":..,"seckey_bytes":N,"component":..}]}
// one process a line.  "ports" has every request (an empty list when it got
// none); "devices":{"ID":[NAME,...]} follows it when a request got devices.
// qos and bandwidth_mbps are null when not assigned.
Status write_json(const mca_pnet_job &job, meridian_coord_view_t view, StreamOut &out);

} // namespace meridian::netmap_tool

#endif
