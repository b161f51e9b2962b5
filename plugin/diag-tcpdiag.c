/* tcpdiag.diag and tcpdiag.host.stall as expert info: one Warning per slow flow
 * carrying its summary, one Note with the fix, one Warning per host-wide stall;
 * the stall preferences. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "tcpdiag.h"
#include "advice.h"

static bool is_finding(td_cause cause)
{
    return cause != TD_CAUSE_NONE && cause != TD_CAUSE_UNKNOWN;
}

static void stall_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_diagnoses *d)
{
    const td_stalls *stalls = td_engine_stalls(td_diagnoses_engine(d));
    int i = td_stalls_resumed_at(stalls, pinfo->num);
    const td_stall *stall;
    char host[64], silent[32];

    if (i < 0)
        return;
    stall = td_stalls_at(stalls, (guint)i);
    td_addr_format(&stall->host, host, sizeof host);
    td_format_duration(stall->end_ns - stall->start_ns, silent, sizeof silent);
    proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_HOST_STALLED), tvb, 0, 0,
        "Host stall: %s sent nothing on any flow for %s while %u of its %u open flows waited on it "
        "(since frame %u)", host, silent, stall->flows_hit, td_diagnoses_stall_active(d, (guint)i),
        stall->last_frame);
}

void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_diagnoses *d = tcpdiag_diagnoses();
    const td_diagnosis *diag = d ? td_diagnosis_of(d, flow) : NULL;
    uint32_t at;
    char summary[TD_SUMMARY_MAX + 1];

    if (!diag)
        return;
    stall_expert(tree, pinfo, tvb, d);
    if (!is_finding((td_cause)diag->cause))
        return;
    at = diag->evidence_frame ? diag->evidence_frame : flow->first_frame;
    if (pinfo->num != at)
        return;
    td_advice_summary(d, flow, summary, sizeof summary);
    proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_DIAG_SLOW), tvb, 0, 0, "%s: %s",
                                 td_cause_name((td_cause)diag->cause), summary);
    proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_DIAG_ADVICE), tvb, 0, 0, "Fix: %s", td_advice_fix(d, flow));
}

void tcpdiag_diag_register(module_t *module, td_stall_config *stall)
{
    prefs_register_uint_preference(module, "stall_min_ms", "Host stall: silence at least (ms)",
        "A host that sends nothing on any of its flows for this long, while flows wait on it, stalled.",
        10, &stall->min_ms);
    prefs_register_uint_preference(module, "stall_min_flows", "Host stall: flows waiting at least",
        "Flows that must have waited on the silent host: one flow's pause is not a host stall.",
        10, &stall->min_flows);
}
