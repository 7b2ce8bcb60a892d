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
#define meridian_coord_get_nics MERIDIAN_NAME(coord_get_nics)
#define meridian_coord_get_planes MERIDIAN_NAME(coord_get_planes)
#define meridian_coord_get_shape MERIDIAN_NAME(coord_get_shape)
#define meridian_coord_register_updated MERIDIAN_NAME(coord_register_updated)
#define meridian_error_count MERIDIAN_NAME(error_count)
#define meridian_finalize MERIDIAN_NAME(finalize)
#define meridian_init MERIDIAN_NAME(init)
#define meridian_mca_base_check_params MERIDIAN_NAME(mca_base_check_params)
#define meridian_mca_base_close MERIDIAN_NAME(mca_base_close)
#define meridian_mca_base_cmdline_apply MERIDIAN_NAME(mca_base_cmdline_apply)
#define meridian_mca_base_component_param_register MERIDIAN_NAME(mca_base_component_param_register)
#define meridian_mca_base_env_prefix MERIDIAN_NAME(mca_base_env_prefix)
#define meridian_mca_base_framework_close MERIDIAN_NAME(mca_base_framework_close)
#define meridian_mca_base_framework_is_open MERIDIAN_NAME(mca_base_framework_is_open)
#define meridian_mca_base_framework_open MERIDIAN_NAME(mca_base_framework_open)
#define meridian_mca_base_framework_declare MERIDIAN_NAME(mca_base_framework_declare)
#define meridian_mca_base_framework_register MERIDIAN_NAME(mca_base_framework_register)
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
#define meridian_mca_msg_base_modex_exchange MERIDIAN_NAME(mca_msg_base_modex_exchange)
#define meridian_mca_msg_base_modex_get MERIDIAN_NAME(mca_msg_base_modex_get)
#define meridian_mca_msg_base_modex_put MERIDIAN_NAME(mca_msg_base_modex_put)
#define meridian_mca_msg_base_start MERIDIAN_NAME(mca_msg_base_start)
#define meridian_mca_msg_base_stop MERIDIAN_NAME(mca_msg_base_stop)
#define meridian_mca_msg_base_transport_name MERIDIAN_NAME(mca_msg_base_transport_name)
#define meridian_mca_msg_base_can_release MERIDIAN_NAME(mca_msg_base_can_release)
#define meridian_mca_pnet_env_set MERIDIAN_NAME(mca_pnet_env_set)
#define meridian_msg_base_framework MERIDIAN_NAME(msg_base_framework)
#define meridian_pnet_base_framework MERIDIAN_NAME(pnet_base_framework)
#define meridian_report MERIDIAN_NAME(report)
#define meridian_set_message_sink MERIDIAN_NAME(set_message_sink)
#define meridian_strerror MERIDIAN_NAME(strerror)
#define meridian_version MERIDIAN_NAME(version)

#endif

#endif
