/* The words of the expert items that read as the diagnosis's answers: a finding's
 * Warning and its fix, the Note on each other flow of a finding, a host-wide stall,
 * and the capture's headline. The plugin adds each item with "%s" of what is
 * written here; the Lua window reads a finding's fields, not these words. */
#ifndef TCPDIAG_DIAGNOSIS_MESSAGES_H
#define TCPDIAG_DIAGNOSIS_MESSAGES_H

#include <glib.h>

#include "diagnosis.h"
#include "text.h"

/* A finding's Warning (TD_E_FINDING_*): "Finding R of N: WHO (ROLE), K flows, T lost: "
 * then the summary of its flow that lost most, the answer first, within the 240
 * characters Expert Information shows. rank counts from 1 among count findings. */
void td_message_finding(const td_diagnoses *d, const td_finding *f, guint rank, guint count, GString *out);
/* TD_E_DIAG_ADVICE: the fix of the finding's flow that lost most. */
void td_message_fix(const td_diagnoses *d, const td_finding *f, GString *out);
/* TD_E_FINDING_FLOW_*: a flow of finding rank other than its lead. */
void td_message_in_finding(const td_diagnoses *d, const td_flow *flow, guint rank, GString *out);
/* What the stalled host did: "sent nothing on any flow for T while N of its M open flows
 * waited on it (since frame F)"; the Statistics table's words for the stall too. */
void td_message_stall_silence(const td_diagnoses *d, guint stall, GString *out);
/* TD_E_HOST_STALLED: the engine's stall number stall, "Host stall: HOST " and its silence. */
void td_message_host_stall(const td_diagnoses *d, guint stall, GString *out);
/* TD_E_CAPTURE: the capture's headline. */
void td_message_capture(const td_diagnoses *d, GString *out);

#endif
