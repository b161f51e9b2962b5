/* The words of the expert items about how a flow was set up: its ECN outcome, the
 * ECN codepoints of its handshake and data, and its TCP options. The plugin adds
 * each item with "%s" of what is written here; the wording lives in the engine,
 * with the verdicts it reads. */
#ifndef TCPDIAG_SETUP_MESSAGES_H
#define TCPDIAG_SETUP_MESSAGES_H

#include <stdbool.h>
#include <glib.h>

#include "ecn.h"
#include "field_table.h"
#include "flow.h"
#include "options.h"

/* The ECN outcome item of a decided flow: writes its message into out and returns
 * its expert id (TD_E_ECN_NEGOTIATED .. TD_E_ECN_UNDETERMINED), or TD_EXPERT_COUNT
 * and writes nothing while the outcome is pending. */
td_expert_id td_message_ecn_outcome(const td_flow *flow, GString *out);
/* TD_E_ECN_ECT_ON_SYN: the SYN (or SYN-ACK) carried this IP ECN codepoint. */
void td_message_ect_on_syn(bool synack, td_ip_ecn codepoint, GString *out);
/* TD_E_ECN_DATA_UNMARKED: ECN negotiated, dir's data never ECT-marked. */
void td_message_ecn_data_unmarked(const char *dir, GString *out);
/* TD_E_ECN_DATA_UNNEGOTIATED: dir's data marked although the outcome says no ECN. */
void td_message_ecn_data_unnegotiated(const char *dir, td_ecn_outcome outcome, GString *out);

/* TD_E_OPTS_NOOPT: a SYN (or SYN-ACK) without any option. */
void td_message_opts_noopt(bool synack, GString *out);
/* TD_E_OPTS_TS_VANISHED: a segment without the negotiated timestamps. */
void td_message_opts_ts_vanished(GString *out);
/* The flow's missing options (audit->missing not 0): writes the message and returns
 * TD_E_OPTS_LIMITING when the transfer ran at the no-scaling ceiling, else
 * TD_E_OPTS_MISSING_INFO. */
td_expert_id td_message_opts_missing(const td_options_audit *audit, GString *out);

#endif
