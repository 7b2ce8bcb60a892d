// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_netmap/output.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/class/coordinate.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/port_ranges.hpp>

#include <nlohmann/json.hpp>

namespace meridian::netmap_tool
{

bool StreamOut::finish()
{
    flush();
    if (!failed_ && std::fflush(stream_) != 0) {
        failed_ = true;
    }
    return !failed_;
}

void StreamOut::flush()
{
    if (!failed_ && !buffer_.empty() &&
        std::fwrite(buffer_.data(), 1, buffer_.size(), stream_) != buffer_.size()) {
        failed_ = true;
    }
    buffer_.clear();
}

namespace
{

void append_number(std::string &out, std::uint64_t value)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}

std::string_view node_name(const mca_pnet_job &handle, std::uint32_t rank)
{
    const pnet::Job &job = handle.job;
    return job.fabric->nodes()[job.map.procs[rank].node].name;
}

// A request's column in the table: its ports, or for a request served with
// devices and no ports at all (UCX's, say) its devices; "-" for none.  (A
// port request's devices are the NICs its ports are on: the NIC column
// already shows them, nearest first.)
void append_grant_cell(std::string &out, const pnet::Grant &grant, std::uint32_t rank)
{
    const auto ports = grant.ports_of(rank);
    if (!ports.empty()) {
        out += fabric::format_port_list(ports);
        return;
    }
    const auto devices =
        grant.ports.empty() ? grant.devices_of(rank) : std::span<const std::uint32_t>();
    if (devices.empty()) {
        out += '-';
        return;
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (i > 0) {
            out += ',';
        }
        out += grant.device_names[devices[i]];
    }
}

void append_nics(std::string &out, const mca_pnet_job &handle, std::uint32_t rank)
{
    const auto nics = handle.job.fabric->nics();
    const auto mine = handle.job.nics_of(rank);
    if (mine.empty()) {
        out += '-';
    }
    for (std::size_t i = 0; i < mine.size(); ++i) {
        if (i > 0) {
            out += ',';
        }
        out += nics[mine[i]].name;
    }
}

// Pad the cell that starts at `start` to `width` and add the gap.
void pad_cell(std::string &out, std::size_t start, std::size_t width)
{
    const std::size_t length = out.size() - start;
    out.append(width > length ? width - length + 2 : 2, ' ');
}

Result<std::vector<Coordinate>> coordinates_of(std::uint32_t rank, meridian_coord_view_t view)
{
    return coord::coordinates(rank, {}, view);
}

// Whether the coordinates can be had at all (a view no plane provides, say),
// asked before anything is written so that a failure leaves no half table.
Status coordinates_available(const pnet::Job &job, meridian_coord_view_t view)
{
    if (job.map.procs.empty()) {
        return success();
    }
    auto first = coordinates_of(0, view);
    if (!first) {
        return first.error();
    }
    return success();
}

// The fewest and most ports any process got for a request; none when its
// component hands out no ports (devices only, say).
std::optional<std::pair<std::size_t, std::size_t>> ports_given(const pnet::Job &job,
                                                               const pnet::Grant &grant)
{
    if (grant.port_offsets.empty()) {
        return std::nullopt;
    }
    std::pair<std::size_t, std::size_t> given{SIZE_MAX, 0};
    const auto ranks = static_cast<std::uint32_t>(job.map.procs.size());
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
        const std::size_t count = grant.ports_of(rank).size();
        given.first = std::min(given.first, count);
        given.second = std::max(given.second, count);
    }
    if (ranks == 0) {
        given.first = 0;
    }
    return given;
}

// "2" when every process got what it asked for, else what they got:
// "4 of 5", "2-3 of 5".
std::string endpts_cell(const pnet::Job &job, const pnet::Grant &grant)
{
    const std::string asked = std::to_string(grant.endpts_asked);
    const auto given = ports_given(job, grant);
    if (!given || (given->first == grant.endpts_asked && given->second == grant.endpts_asked)) {
        return asked;
    }
    const std::string got = given->first == given->second ? std::to_string(given->first)
                                                          : std::to_string(given->first) + "-" +
                                                                std::to_string(given->second);
    return got + " of " + asked;
}

void write_request_table(const pnet::Job &job, StreamOut &out)
{
    // Few rows: made as cells first, then aligned.
    std::vector<std::vector<std::string>> rows;
    rows.push_back(
        {"request", "type", "plane", "endpts", "qos", "bandwidth", "seckey", "component"});
    for (const pnet::Grant &grant : job.grants) {
        rows.push_back(
            {grant.id, grant.type, grant.plane.empty() ? "-" : grant.plane, endpts_cell(job, grant),
             grant.qos ? std::to_string(*grant.qos) : "-",
             grant.bandwidth_mbps ? fabric::format_rate_mbps(*grant.bandwidth_mbps) : "-",
             grant.seckey.empty() ? "-" : std::to_string(grant.seckey.size()) + " bytes",
             grant.component.empty() ? "-" : grant.component});
    }
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto &row : rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            widths[c] = std::max(widths[c], row[c].size());
        }
    }
    std::string &text = out.text();
    for (const auto &row : rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            const std::size_t start = text.size();
            text += row[c];
            if (c + 1 < row.size()) {
                pad_cell(text, start, widths[c]);
            }
        }
        text += '\n';
    }
    text += '\n';
}

} // namespace

Status write_table(const mca_pnet_job &handle, meridian_coord_view_t view, StreamOut &out)
{
    const pnet::Job &job = handle.job;
    const auto size = static_cast<std::uint32_t>(job.map.procs.size());
    if (auto available = coordinates_available(job, view); !available) {
        return available;
    }
    if (!job.grants.empty()) {
        write_request_table(job, out);
    }

    // Column widths: a first pass over the cells that vary (linear, and
    // cheaper than keeping a million lines to align them afterwards).  The
    // coordinates come last, so they need no width.
    std::size_t rank_width = std::string_view("rank").size();
    rank_width = std::max(rank_width, std::to_string(size > 0 ? size - 1 : 0).size());
    std::size_t node_width = std::string_view("node").size();
    for (const fabric::Index node : job.map.nodes) {
        node_width = std::max(node_width, job.fabric->nodes()[node].name.size());
    }
    std::vector<std::size_t> grant_widths;
    for (const pnet::Grant &grant : job.grants) {
        grant_widths.push_back(grant.id.size());
    }
    std::size_t nics_width = std::string_view("nics").size();
    std::string cell;
    for (std::uint32_t rank = 0; rank < size; ++rank) {
        for (std::size_t g = 0; g < job.grants.size(); ++g) {
            cell.clear();
            append_grant_cell(cell, job.grants[g], rank);
            grant_widths[g] = std::max(grant_widths[g], cell.size());
        }
        cell.clear();
        append_nics(cell, handle, rank);
        nics_width = std::max(nics_width, cell.size());
    }

    std::string &text = out.text();
    text.append(rank_width - 4, ' ');
    text += "rank  ";
    std::size_t start = text.size();
    text += "node";
    pad_cell(text, start, node_width);
    for (std::size_t g = 0; g < job.grants.size(); ++g) {
        start = text.size();
        text += job.grants[g].id;
        pad_cell(text, start, grant_widths[g]);
    }
    start = text.size();
    text += "nics";
    pad_cell(text, start, nics_width);
    text += "coordinates (" + view_name(view) + ")\n";

    for (std::uint32_t rank = 0; rank < size; ++rank) {
        auto coords = coordinates_of(rank, view);
        if (!coords) {
            return coords.error();
        }
        // Ranks right-aligned, as numbers are.
        cell.clear();
        append_number(cell, rank);
        text.append(rank_width - cell.size(), ' ');
        text += cell;
        text += "  ";
        start = text.size();
        text += node_name(handle, rank);
        pad_cell(text, start, node_width);
        for (std::size_t g = 0; g < job.grants.size(); ++g) {
            start = text.size();
            append_grant_cell(text, job.grants[g], rank);
            pad_cell(text, start, grant_widths[g]);
        }
        start = text.size();
        append_nics(text, handle, rank);
        pad_cell(text, start, nics_width);
        if (coords->empty()) {
            text += '-';
        }
        for (std::size_t i = 0; i < coords->size(); ++i) {
            const Coordinate &c = (*coords)[i];
            if (i > 0) {
                text += ' ';
            }
            text += c.plane;
            text += format_coord(c.coord);
        }
        text += '\n';
        out.record_done();
    }
    return success();
}

namespace
{

// One record of the document, written on a line of its own so that a job of
// millions of processes streams out record by record.  Strings that are not
// valid UTF-8 (names from a fabric file) get U+FFFD, so the output is always
// JSON.
void append_record(std::string &text, const nlohmann::ordered_json &record)
{
    text += record.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::ordered_json proc_record(const mca_pnet_job &handle, std::uint32_t rank, bool any_devices,
                                   std::span<const fabric::Nic> nics,
                                   const std::vector<Coordinate> &coords)
{
    const pnet::Job &job = handle.job;
    nlohmann::ordered_json record;
    record["rank"] = rank;
    record["node"] = std::string(node_name(handle, rank));
    auto &ports = record["ports"] = nlohmann::ordered_json::object();
    for (const pnet::Grant &grant : job.grants) {
        const auto mine = grant.ports_of(rank);
        ports[grant.id] = std::vector<std::uint64_t>(mine.begin(), mine.end());
    }
    if (any_devices) {
        auto &devices = record["devices"] = nlohmann::ordered_json::object();
        for (const pnet::Grant &grant : job.grants) {
            auto &names = devices[grant.id] = nlohmann::ordered_json::array();
            for (const auto device : grant.devices_of(rank)) {
                names.push_back(grant.device_names[device]);
            }
        }
    }
    auto &nic_names = record["nics"] = nlohmann::ordered_json::array();
    for (const auto nic : job.nics_of(rank)) {
        nic_names.push_back(nics[nic].name);
    }
    auto &coord_list = record["coords"] = nlohmann::ordered_json::array();
    for (const Coordinate &c : coords) {
        nlohmann::ordered_json entry;
        entry["plane"] = c.plane;
        entry["view"] = view_name(c.view);
        entry["coord"] = std::vector<std::uint64_t>(c.coord.begin(), c.coord.end());
        coord_list.push_back(std::move(entry));
    }
    return record;
}

nlohmann::ordered_json request_record(const pnet::Job &job, const pnet::Grant &grant)
{
    nlohmann::ordered_json record;
    record["id"] = grant.id;
    record["type"] = grant.type;
    record["plane"] = grant.plane;
    record["endpts"] = grant.endpts_asked;
    if (const auto given = ports_given(job, grant)) {
        record["endpts_given"] = {given->first, given->second};
    } else {
        record["endpts_given"] = nullptr;
    }
    record["qos"] =
        grant.qos ? nlohmann::ordered_json(*grant.qos) : nlohmann::ordered_json(nullptr);
    if (grant.bandwidth_mbps && std::isfinite(*grant.bandwidth_mbps)) {
        // A whole number as an integer (2500, not 2500.0): the shortest text
        // that reads back as the same value, as before.
        const double mbps = *grant.bandwidth_mbps;
        constexpr double exact_integers = 9007199254740992.0; // 2^53
        if (mbps >= 0 && mbps < exact_integers && std::floor(mbps) == mbps) {
            record["bandwidth_mbps"] = static_cast<std::uint64_t>(mbps);
        } else {
            record["bandwidth_mbps"] = mbps;
        }
    } else {
        record["bandwidth_mbps"] = nullptr;
    }
    record["seckey_bytes"] = grant.seckey.size();
    record["component"] = grant.component;
    return record;
}

} // namespace

Status write_json(const mca_pnet_job &handle, meridian_coord_view_t view, StreamOut &out)
{
    const pnet::Job &job = handle.job;
    const auto size = static_cast<std::uint32_t>(job.map.procs.size());
    const bool any_devices = std::any_of(job.grants.begin(), job.grants.end(),
                                         [](const auto &g) { return !g.device_names.empty(); });
    const auto nics = job.fabric->nics();
    if (auto available = coordinates_available(job, view); !available) {
        return available;
    }
    std::string &text = out.text();
    text += "{\"procs\":[";
    for (std::uint32_t rank = 0; rank < size; ++rank) {
        auto coords = coordinates_of(rank, view);
        if (!coords) {
            return coords.error();
        }
        text += rank == 0 ? "\n" : ",\n";
        append_record(text, proc_record(handle, rank, any_devices, nics, *coords));
        out.record_done();
    }
    text += size == 0 ? "],\n\"requests\":[" : "\n],\n\"requests\":[";
    for (std::size_t g = 0; g < job.grants.size(); ++g) {
        text += g == 0 ? "\n" : ",\n";
        append_record(text, request_record(job, job.grants[g]));
    }
    text += job.grants.empty() ? "]}\n" : "\n]}\n";
    return success();
}

} // namespace meridian::netmap_tool
