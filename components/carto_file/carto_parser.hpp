// SPDX-License-Identifier: BSD-3-Clause
// carto_file's parsing layer: carto text -> a plain description of the host
// graph (vertices and directed weighted edges, in file order).  Nothing here
// builds a graph or touches the MCA: carto_graph_build.hpp turns the
// description into a graph, and the carto base writes a graph back as carto
// text (meridian::carto::format_carto_text, mca/carto/base/base.hpp).
//
// Two formats, told apart by the first thing in the file
// (detect_carto_format):
//
// * Adjacency format (the carto requirements, figure 3).  A line that starts
//   in column 1 declares a vertex: its first word is the vertex's name, the
//   rest of the line (if any) its entries.  A line that starts with a blank
//   (space or tab) continues the entry list of the vertex declared last, so a
//   vertex may stand alone on its line with its list on the indented lines
//   below it, or carry its list on its own line, or both.  An entry
//   NAME:WEIGHT is a directed edge from the list's vertex to NAME; entries
//   are separated by blanks, by one comma right after an entry, or both (so a
//   comma may end a line, but not start a list).  Blanks around the ':' are
//   allowed; an entry does not span lines.
//   '#' starts a comment that runs to the end of the line; blank lines and
//   comment lines do not end a vertex's list.  Vertex types come from names
//   (the base's meridian::carto::vertex_type_from_name, mca/carto/base/base.hpp).
//
// * Open MPI 1.3's format.  One statement per line, indentation free:
//     EDGE <type> <name>                   a vertex of a type (open_mpi_vertex_type)
//     BRANCH <from> <to>:<w> ...            directed edges from -> to
//     BRANCH_BI_DIR <from> <to>:<w> ...     edges both ways, same weight
//   Entries are written as in the adjacency format.  Comments: '#' and '//' to
//   the end of the line, '/* ... */' anywhere (as a blank), possibly over
//   several lines, in which case it also ends the statement it interrupts.
//
// In both formats a name may be used before the line that declares it; a
// name that no line declares is an error.  Names are ASCII letters, digits,
// '_', '-' and '.', at most max_vertex_name_bytes (255) long; EDGE, BRANCH
// and BRANCH_BI_DIR are reserved.  A weight is
// a whole number from 0 to 2^64-1.  A vertex is declared once and an edge
// (an ordered pair of vertices) given once.  Lines end with "\n" ("\r" counts
// as a blank); columns count bytes from 1.
//
// Errors are values: one message "PATH:LINE:COLUMN: expected ..., found ...",
// for the first syntax error in the file, or when there is none the first use
// of an undeclared vertex; an unreadable file gives "PATH: <strerror>".
// Any byte sequence is safe to parse (it is either a description or an error).
#ifndef MERIDIAN_COMPONENTS_CARTO_FILE_CARTO_PARSER_HPP
#define MERIDIAN_COMPONENTS_CARTO_FILE_CARTO_PARSER_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/mca/carto/carto.h>
#include <meridian/opal/util/result.hpp>

namespace meridian::carto
{

enum class CartoFormat { adjacency, open_mpi };

// The longest vertex name a carto file may give: far above any real one
// ("Slot0", "mlx5_0"), and what keeps a hostile file from making vertices
// of megabytes.
inline constexpr std::size_t max_vertex_name_bytes = 255;

// Where a vertex or edge was written (1-based); 0 for one not read from text.
struct CartoVertex {
    std::string name;
    mca_carto_vertex_type_t type = MCA_CARTO_OTHER;
    std::size_t line = 0;
    std::size_t column = 0;
};

// An edge's position is that of its NAME:WEIGHT entry (both edges of a
// BRANCH_BI_DIR entry share it).
struct CartoEdge {
    std::string from;
    std::string to;
    std::uint64_t weight = 0;
    std::size_t line = 0;
    std::size_t column = 0;
};

struct CartoDescription {
    CartoFormat format = CartoFormat::adjacency;
    std::vector<CartoVertex> vertices; // in declaration order
    std::vector<CartoEdge> edges;      // in file order
};

// Skip blanks, line ends and '#' comments: the file is in Open MPI's format
// when what comes next is a '//' or '/*' comment or one of the words EDGE,
// BRANCH, BRANCH_BI_DIR (as Open MPI spelled them); otherwise, including when
// nothing comes next, it is in the adjacency format.  A leading UTF-8 byte
// order mark is skipped first, as parse_carto skips it.
CartoFormat detect_carto_format(std::string_view text);

// An Open MPI EDGE type, in any case: Memory -> MEM, slot or Socket -> SLOT,
// Infiniband -> IB, Ethernet -> ETH, Other -> OTHER; nullopt for anything else.
std::optional<mca_carto_vertex_type_t> open_mpi_vertex_type(std::string_view word);

// "SLOT", "MEM", "ETH", "IB", "OTHER" ("ALL" for the mask of all; "?" else).
std::string_view vertex_type_name(mca_carto_vertex_type_t type);

// Parse carto text; path only names the file in messages.
Result<CartoDescription> parse_carto(std::string_view path, std::string_view text);

// Read and parse a file (errors as parse_carto, or "PATH: <strerror>"; a
// file over 256 MiB is refused as too large).
Result<CartoDescription> read_carto_file(const std::string &path);

} // namespace meridian::carto

#endif
