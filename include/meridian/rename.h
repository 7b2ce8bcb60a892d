/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exported C names under an embedding project's prefix.
 *
 * Every C name libmeridian exports begins with "meridian_".  A project that
 * embeds Meridian may configure it with --with-symbol-prefix=PREFIX (or
 * MERIDIAN_SETUP_EMBEDDED in its own configure.ac); each name is then linked
 * as PREFIX followed by the rest of the name (meridian_init -> PREFIXinit), so
 * two copies of Meridian, or Meridian and a library with clashing names, can
 * share a process.  Sources keep writing meridian_init: these macros rename
 * the declarations and every call alike, as hwloc's rename.h does.
 *
 * Included first by every public C header.  The list is checked against the
 * exported names of the library by the test suite (test/contrib).
 */
#ifndef MERIDIAN_RENAME_H
#define MERIDIAN_RENAME_H

#include <meridian/meridian_config.h>

/* Around the declarations of every public C header: C linkage from C++, and
 * the names' visibility.  An embedded build compiles Meridian's code hidden
 * (-fvisibility=hidden): the C API alone leaves the library that embeds it,
 * and the C++ code and the standard library's and Boost's template instances
 * stay inside. */
#if defined(__GNUC__)
#define MERIDIAN_VISIBLE_BEGIN_ _Pragma("GCC visibility push(default)")
#define MERIDIAN_VISIBLE_END_ _Pragma("GCC visibility pop")
#else
#define MERIDIAN_VISIBLE_BEGIN_
#define MERIDIAN_VISIBLE_END_
#endif
#ifdef __cplusplus
#define MERIDIAN_C_API_BEGIN                                                                       \
    extern "C" {                                                                                   \
    MERIDIAN_VISIBLE_BEGIN_
#define MERIDIAN_C_API_END                                                                         \
    MERIDIAN_VISIBLE_END_                                                                          \
    }
#else
#define MERIDIAN_C_API_BEGIN MERIDIAN_VISIBLE_BEGIN_
#define MERIDIAN_C_API_END MERIDIAN_VISIBLE_END_
#endif

#if MERIDIAN_SYMBOL_PREFIX_IS_DEFAULT == 0

#define MERIDIAN_NAME_PASTE_(prefix, name) prefix##name
#define MERIDIAN_NAME_PASTE(prefix, name) MERIDIAN_NAME_PASTE_(prefix, name)
#define MERIDIAN_NAME(name) MERIDIAN_NAME_PASTE(MERIDIAN_SYMBOL_PREFIX, name)

#define meridian_builtin_frameworks MERIDIAN_NAME(builtin_frameworks)
#define meridian_carto_base_framework MERIDIAN_NAME(carto_base_framework)
#define meridian_coord_base_framework MERIDIAN_NAME(coord_base_framework)
#define meridian_coord_construct MERIDIAN_NAME(coord_construct)
#define meridian_coord_copy MERIDIAN_NAME(coord_copy)
#define meridian_coord_create MERIDIAN_NAME(coord_create)
#define meridian_coord_deregister_updated MERIDIAN_NAME(coord_deregister_updated)
#define meridian_coord_destruct MERIDIAN_NAME(coord_destruct)
#define meridian_coord_free MERIDIAN_NAME(coord_free)
#define meridian_coord_get_coordinates MERIDIAN_NAME(coord_get_coordinates)
#define meridian_coord_get_cost MERIDIAN_NAME(coord_get_cost)
#define meridian_coord_get_dims MERIDIAN_NAME(coord_get_dims)
#define meridian_coord_get_endpoints MERIDIAN_NAME(coord_get_endpoints)
#define meridian_coord_get_nic MERIDIAN_NAME(coord_get_nic)
#define meridian_coord_get_nic_coordinate MERIDIAN_NAME(coord_get_nic_coordinate)
#define meridian_coord_get_nic_endpoints MERIDIAN_NAME(coord_get_nic_endpoints)
#define meridian_coord_get_nic_shape MERIDIAN_NAME(coord_get_nic_shape)
#define meridian_coord_get_nics MERIDIAN_NAME(coord_get_nics)
#define meridian_coord_get_plane_nics MERIDIAN_NAME(coord_get_plane_nics)
#define meridian_coord_get_planes MERIDIAN_NAME(coord_get_planes)
#define meridian_coord_get_shape MERIDIAN_NAME(coord_get_shape)
#define meridian_coord_get_shapes MERIDIAN_NAME(coord_get_shapes)
#define meridian_coord_plane_nics_free MERIDIAN_NAME(coord_plane_nics_free)
#define meridian_coord_plane_shapes_free MERIDIAN_NAME(coord_plane_shapes_free)
#define meridian_coord_register_updated MERIDIAN_NAME(coord_register_updated)
#define meridian_error_count MERIDIAN_NAME(error_count)
#define meridian_finalize MERIDIAN_NAME(finalize)
#define meridian_init MERIDIAN_NAME(init)
#define meridian_mca_base_check_params MERIDIAN_NAME(mca_base_check_params)
#define meridian_mca_base_close MERIDIAN_NAME(mca_base_close)
#define meridian_mca_base_cmdline_apply MERIDIAN_NAME(mca_base_cmdline_apply)
#define meridian_mca_base_component_alias MERIDIAN_NAME(mca_base_component_alias)
#define meridian_mca_base_component_param_register MERIDIAN_NAME(mca_base_component_param_register)
#define meridian_mca_base_env_prefix MERIDIAN_NAME(mca_base_env_prefix)
#define meridian_mca_base_framework_close MERIDIAN_NAME(mca_base_framework_close)
#define meridian_mca_base_framework_is_open MERIDIAN_NAME(mca_base_framework_is_open)
#define meridian_mca_base_framework_open MERIDIAN_NAME(mca_base_framework_open)
#define meridian_mca_base_framework_declare MERIDIAN_NAME(mca_base_framework_declare)
#define meridian_mca_base_framework_register MERIDIAN_NAME(mca_base_framework_register)
#define meridian_mca_base_framework_register_flags MERIDIAN_NAME(mca_base_framework_register_flags)
#define meridian_mca_base_frameworks MERIDIAN_NAME(mca_base_frameworks)
#define meridian_mca_base_framework_verbose MERIDIAN_NAME(mca_base_framework_verbose)
#define meridian_mca_base_open MERIDIAN_NAME(mca_base_open)
#define meridian_mca_base_param_find MERIDIAN_NAME(mca_base_param_find)
#define meridian_mca_base_param_register MERIDIAN_NAME(mca_base_param_register)
#define meridian_mca_base_param_register_synonym MERIDIAN_NAME(mca_base_param_register_synonym)
#define meridian_mca_base_param_set_bounds MERIDIAN_NAME(mca_base_param_set_bounds)
#define meridian_mca_base_param_set_value MERIDIAN_NAME(mca_base_param_set_value)
#define meridian_mca_base_param_value_string MERIDIAN_NAME(mca_base_param_value_string)
#define meridian_mca_base_select MERIDIAN_NAME(mca_base_select)
#define meridian_mca_base_select_all MERIDIAN_NAME(mca_base_select_all)
#define meridian_mca_carto_base_get_host_graph MERIDIAN_NAME(mca_carto_base_get_host_graph)
#define meridian_mca_carto_base_select MERIDIAN_NAME(mca_carto_base_select)
#define meridian_mca_carto_base_selected_component MERIDIAN_NAME(mca_carto_base_selected_component)
#define meridian_mca_carto_distance_list_free MERIDIAN_NAME(mca_carto_distance_list_free)
#define meridian_mca_carto_graph_add_edge MERIDIAN_NAME(mca_carto_graph_add_edge)
#define meridian_mca_carto_graph_add_vertex MERIDIAN_NAME(mca_carto_graph_add_vertex)
#define meridian_mca_carto_graph_distance_list MERIDIAN_NAME(mca_carto_graph_distance_list)
#define meridian_mca_carto_graph_edge_count MERIDIAN_NAME(mca_carto_graph_edge_count)
#define meridian_mca_carto_graph_find_vertex MERIDIAN_NAME(mca_carto_graph_find_vertex)
#define meridian_mca_carto_graph_free MERIDIAN_NAME(mca_carto_graph_free)
#define meridian_mca_carto_graph_new MERIDIAN_NAME(mca_carto_graph_new)
#define meridian_mca_carto_graph_shortest_path MERIDIAN_NAME(mca_carto_graph_shortest_path)
#define meridian_mca_carto_graph_vertex_count MERIDIAN_NAME(mca_carto_graph_vertex_count)
#define meridian_mca_carto_graph_vertex_name MERIDIAN_NAME(mca_carto_graph_vertex_name)
#define meridian_mca_carto_graph_vertex_type MERIDIAN_NAME(mca_carto_graph_vertex_type)
#define meridian_mca_carto_path_free MERIDIAN_NAME(mca_carto_path_free)
#define meridian_mca_carto_type_from_name MERIDIAN_NAME(mca_carto_type_from_name)
#define meridian_mca_carto_type_name MERIDIAN_NAME(mca_carto_type_name)
#define meridian_mca_coord_context_set_nic MERIDIAN_NAME(mca_coord_context_set_nic)
#define meridian_mca_coord_context_set_shape MERIDIAN_NAME(mca_coord_context_set_shape)
#define meridian_mca_msg_base_announce MERIDIAN_NAME(mca_msg_base_announce)
#define meridian_mca_msg_base_announce_again MERIDIAN_NAME(mca_msg_base_announce_again)
#define meridian_mca_msg_base_arrive_begin MERIDIAN_NAME(mca_msg_base_arrive_begin)
#define meridian_mca_msg_base_arrive_into MERIDIAN_NAME(mca_msg_base_arrive_into)
#define meridian_mca_msg_base_arrive_left MERIDIAN_NAME(mca_msg_base_arrive_left)
#define meridian_mca_msg_base_arrive_more MERIDIAN_NAME(mca_msg_base_arrive_more)
#define meridian_mca_msg_base_arrive_pieces MERIDIAN_NAME(mca_msg_base_arrive_pieces)
#define meridian_mca_msg_base_arrive_placed MERIDIAN_NAME(mca_msg_base_arrive_placed)
#define meridian_mca_msg_base_channel_text MERIDIAN_NAME(mca_msg_base_channel_text)
#define meridian_mca_msg_base_complete MERIDIAN_NAME(mca_msg_base_complete)
#define meridian_mca_msg_base_fits MERIDIAN_NAME(mca_msg_base_fits)
#define meridian_mca_msg_base_may_arrive MERIDIAN_NAME(mca_msg_base_may_arrive)
#define meridian_mca_msg_base_oversubscribed MERIDIAN_NAME(mca_msg_base_oversubscribed)
#define meridian_mca_msg_base_peer_busy MERIDIAN_NAME(mca_msg_base_peer_busy)
#define meridian_mca_msg_base_peer_dead MERIDIAN_NAME(mca_msg_base_peer_dead)
#define meridian_mca_msg_base_peer_died MERIDIAN_NAME(mca_msg_base_peer_died)
#define meridian_mca_msg_base_peer_text MERIDIAN_NAME(mca_msg_base_peer_text)
#define meridian_mca_msg_base_timeout MERIDIAN_NAME(mca_msg_base_timeout)
#define meridian_mca_msg_base_withdraw MERIDIAN_NAME(mca_msg_base_withdraw)
#define meridian_mca_msg_base_modex_exchange MERIDIAN_NAME(mca_msg_base_modex_exchange)
#define meridian_mca_msg_base_modex_get MERIDIAN_NAME(mca_msg_base_modex_get)
#define meridian_mca_msg_base_modex_put MERIDIAN_NAME(mca_msg_base_modex_put)
#define meridian_mca_msg_base_start MERIDIAN_NAME(mca_msg_base_start)
#define meridian_mca_msg_base_start_channel MERIDIAN_NAME(mca_msg_base_start_channel)
#define meridian_mca_msg_base_stop MERIDIAN_NAME(mca_msg_base_stop)
#define meridian_mca_msg_base_transport_name MERIDIAN_NAME(mca_msg_base_transport_name)
#define meridian_mca_msg_base_can_release MERIDIAN_NAME(mca_msg_base_can_release)
#define meridian_mca_msg_base_launcher_gone MERIDIAN_NAME(mca_msg_base_launcher_gone)
#define meridian_mca_pnet_env_set MERIDIAN_NAME(mca_pnet_env_set)
#define meridian_msg_base_framework MERIDIAN_NAME(msg_base_framework)
#define meridian_pnet_active_components MERIDIAN_NAME(pnet_active_components)
#define meridian_pnet_allocate MERIDIAN_NAME(pnet_allocate)
#define meridian_pnet_assignment_free MERIDIAN_NAME(pnet_assignment_free)
#define meridian_pnet_base_framework MERIDIAN_NAME(pnet_base_framework)
#define meridian_pnet_close MERIDIAN_NAME(pnet_close)
#define meridian_pnet_collect_inventory MERIDIAN_NAME(pnet_collect_inventory)
#define meridian_pnet_deregister MERIDIAN_NAME(pnet_deregister)
#define meridian_pnet_fabric_deliver MERIDIAN_NAME(pnet_fabric_deliver)
#define meridian_pnet_fabric_format MERIDIAN_NAME(pnet_fabric_format)
#define meridian_pnet_fabric_free MERIDIAN_NAME(pnet_fabric_free)
#define meridian_pnet_fabric_new MERIDIAN_NAME(pnet_fabric_new)
#define meridian_pnet_fabric_parse MERIDIAN_NAME(pnet_fabric_parse)
#define meridian_pnet_fabric_read MERIDIAN_NAME(pnet_fabric_read)
#define meridian_pnet_get_assignment MERIDIAN_NAME(pnet_get_assignment)
#define meridian_pnet_inventory_free MERIDIAN_NAME(pnet_inventory_free)
#define meridian_pnet_job_free MERIDIAN_NAME(pnet_job_free)
#define meridian_pnet_job_new MERIDIAN_NAME(pnet_job_new)
#define meridian_pnet_job_set_seckey MERIDIAN_NAME(pnet_job_set_seckey)
#define meridian_pnet_launch_blob MERIDIAN_NAME(pnet_launch_blob)
#define meridian_pnet_launch_blob_with MERIDIAN_NAME(pnet_launch_blob_with)
#define meridian_pnet_node_job_new MERIDIAN_NAME(pnet_node_job_new)
#define meridian_pnet_open MERIDIAN_NAME(pnet_open)
#define meridian_pnet_pmix_node_data MERIDIAN_NAME(pnet_pmix_node_data)
#define meridian_pnet_pmix_node_inventory MERIDIAN_NAME(pnet_pmix_node_inventory)
#define meridian_pnet_pmix_proc_data MERIDIAN_NAME(pnet_pmix_proc_data)
#define meridian_pnet_request_ids MERIDIAN_NAME(pnet_request_ids)
#define meridian_pnet_package_of_locality MERIDIAN_NAME(pnet_package_of_locality)
#define meridian_pnet_requests_add MERIDIAN_NAME(pnet_requests_add)
#define meridian_pnet_requests_count MERIDIAN_NAME(pnet_requests_count)
#define meridian_pnet_requests_format MERIDIAN_NAME(pnet_requests_format)
#define meridian_pnet_requests_free MERIDIAN_NAME(pnet_requests_free)
#define meridian_pnet_requests_new MERIDIAN_NAME(pnet_requests_new)
#define meridian_pnet_requests_parse MERIDIAN_NAME(pnet_requests_parse)
#define meridian_pnet_setup_fork MERIDIAN_NAME(pnet_setup_fork)
#define meridian_pnet_setup_local_network MERIDIAN_NAME(pnet_setup_local_network)
#define meridian_qmp_mpi MERIDIAN_NAME(qmp_mpi)
#define meridian_report MERIDIAN_NAME(report)
#define meridian_set_message_sink MERIDIAN_NAME(set_message_sink)
#define meridian_strerror MERIDIAN_NAME(strerror)
#define meridian_version MERIDIAN_NAME(version)

#endif

#endif
