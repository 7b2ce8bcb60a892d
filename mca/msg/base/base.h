/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The msg base in libmeridian: bringing up the selected transport for the
 * QMP layer (libqmp), which is its only caller.
 */
#ifndef MERIDIAN_MCA_MSG_BASE_BASE_H
#define MERIDIAN_MCA_MSG_BASE_BASE_H

#include <meridian/rename.h>

#include <meridian/mca/msg/msg.h>

MERIDIAN_C_API_BEGIN

/* Open the msg framework (meridian_init must have run), select the
 * transport, learn the job through the datastore (PMIx when a PMIx launcher
 * started the process, a job of one otherwise) and bring the transport up:
 * init, one exchange, connect.  On success *module and *job stay valid
 * until meridian_mca_msg_base_stop.  Errors are reported (which step, why) and
 * returned; nothing needs stopping after an error.  Not reference-counted:
 * one start, one stop. */
int meridian_mca_msg_base_start(mca_msg_base_module_t **module, const mca_msg_job_t **job);
/* Finalize the transport and close the framework. */
int meridian_mca_msg_base_stop(void);
/* The selected component's name ("ofi"), or NULL when not started. */
const char *meridian_mca_msg_base_transport_name(void);
/* 1 when the started transport's module has channel_release (a component of
 * msg interface 2.1 or later; a 2.0 module ends before it), else 0. */
int meridian_mca_msg_base_can_release(void);
/* 1 once the launcher that started this process is gone (msg_base_launcher_loss:
 * every wait fails from then on, and the process ends soon), else 0. */
int meridian_mca_msg_base_launcher_gone(void);

MERIDIAN_C_API_END

#endif
