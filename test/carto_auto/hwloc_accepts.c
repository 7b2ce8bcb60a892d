/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hwloc_accepts FILE: exit 0 when hwloc, linked into a program as usual
 * (its plugins load), loads the XML topology FILE, 1 otherwise.  The tests
 * hold carto_auto, loaded as a component, to the same answer.
 */
#include <hwloc.h>

int main(int argc, char **argv)
{
    hwloc_topology_t topology;
    int loaded;
    if (argc != 2 || hwloc_topology_init(&topology) != 0) {
        return 2;
    }
    hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_ALL);
    loaded = hwloc_topology_set_xml(topology, argv[1]) == 0 && hwloc_topology_load(topology) == 0;
    hwloc_topology_destroy(topology);
    return loaded ? 0 : 1;
}
