// SPDX-License-Identifier: BSD-3-Clause
// The msg base's exchange, per session.  A process publishes its msg keys
// again each time QMP starts anew (finalize, then init), and under PMIx 5 a
// peer keeps reading the first value of a key put again (its server answers
// from what it had; PMIX_GET_REFRESH_CACHE does not change that): each
// session after the first publishes and reads its keys under its own names
// ("meridian.msg.2.node").  Every process of a job starts its sessions
// together (QMP_init is collective), so the numbers agree.
#ifndef MERIDIAN_MCA_MSG_BASE_MSG_MODEX_HPP
#define MERIDIAN_MCA_MSG_BASE_MSG_MODEX_HPP

namespace meridian::msg::modex
{

// Called once per start of the transports, before anything is published.
void begin_session();

} // namespace meridian::msg::modex

#endif
