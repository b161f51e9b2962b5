/* tcpdiag.diag and tcpdiag.host.stall as Expert Information that reads as answers
 * when grouped: one item per cause, titled by it ("Slow flow: window collapse"); per
 * finding of the report (a cause and whose fix it is) one Warning and one Note with
 * the fix, on the evidence packet of its flow that lost most; a Note on each other
 * flow of the finding; a Note per host-wide stall; one Chat with the capture's
 * headline ("diagnosis of 20 flows: ...") on the first flow's first packet. The
 * stall preferences. The items are the field table's (engine/field_table.c). */

#include "ws_compat.h"

#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "state-tcpdiag.h"
#include "advice.h"
#include "text.h"

/* The report's findings of the capture being shown, and per flow index its
 * finding's rank (from 1; 0 for a flow in none) and whether it is the finding's
 * flow that lost most (RANK_LEAD), built once from the final diagnosis. */
#define RANK_LEAD 0x80000000u
static const td_diagnoses *findings_of;
static GPtrArray *findings;
static GArray *rank_of_flow;
static uint32_t first_frame_of_capture;

static bool is_finding(td_cause cause)
{
    return cause != TD_CAUSE_NONE && cause != TD_CAUSE_UNKNOWN;
}

/* A cause's item of a run of the table's expert items kept in cause order (the
 * findings' Warnings, or their other flows' Notes), from the run's first. */
static expert_field *finding_item(td_expert_id first, td_cause cause)
{
    return tcpdiag_expert((td_expert_id)(first + (cause - TD_CAUSE_HOST_STALL)));
}

static void forget_findings(void)
{
    if (findings)
        g_ptr_array_free(findings, TRUE);
    if (rank_of_flow)
        g_array_free(rank_of_flow, TRUE);
    findings = NULL;
    rank_of_flow = NULL;
    findings_of = NULL;
}

/* Once per diagnosis: the findings in the report's order and each flow's place. */
static void index_findings(const td_diagnoses *d)
{
    const td_engine *engine = td_diagnoses_engine(d);
    guint flows = td_engine_flow_count(engine);

    if (findings_of == d)
        return;
    forget_findings();
    findings_of = d;
    findings = td_text_findings(d);
    rank_of_flow = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    g_array_set_size(rank_of_flow, flows);
    for (guint rank = 1; rank <= findings->len; rank++) {
        const td_finding *f = g_ptr_array_index(findings, rank - 1);
        for (guint i = 0; i < f->flows->len; i++) {
            const td_flow *flow = g_ptr_array_index(f->flows, i);
            g_array_index(rank_of_flow, uint32_t, flow->index) = rank | (flow == f->worst ? RANK_LEAD : 0);
        }
    }
    first_frame_of_capture = 0;
    for (guint i = 0; i < flows; i++) {
        uint32_t frame = td_engine_flow_at(engine, i)->first_frame;
        if (!first_frame_of_capture || frame < first_frame_of_capture)
            first_frame_of_capture = frame;
    }
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

static void capture_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_diagnoses *d)
{
    GString *headline;

    if (pinfo->num != first_frame_of_capture)
        return;
    headline = g_string_new("Capture: ");
    td_text_headline(d, headline);
    proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_CAPTURE), tvb, 0, 0, "%s", headline->str);
    g_string_free(headline, TRUE);
}

/* The finding's Warning and its fix. The text opens with what the Lua window
 * (lua/tcpdiag_window.lua) reads: "Finding R of N: WHO (ROLE), K flows, T lost: ",
 * then the summary of its flow that lost most (the answer first, within the 240
 * characters Expert Information shows). */
static void finding_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_diagnoses *d,
                           guint rank)
{
    const td_finding *f = g_ptr_array_index(findings, rank - 1);
    char who[64], lost[32] = "", summary[TD_SUMMARY_MAX + 1];

    td_addr_format(f->who, who, sizeof who);
    if (f->lost_ns > 0) {
        g_strlcpy(lost, ", ", sizeof lost);
        td_format_duration(f->lost_ns, lost + 2, sizeof lost - 2);
        g_strlcat(lost, " lost", sizeof lost);
    }
    td_advice_summary(d, f->worst, summary, sizeof summary);
    proto_tree_add_expert_format(tree, pinfo, finding_item(TD_E_FINDING_HOST_STALL, f->cause), tvb, 0, 0,
                                 "Finding %u of %u: %s (%s), %u flow%s%s: %s",
                                 rank, findings->len, who, f->role, f->flows->len, f->flows->len == 1 ? "" : "s",
                                 lost, summary);
    proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_DIAG_ADVICE), tvb, 0, 0, "Fix: %s",
                                 td_advice_fix(d, f->worst));
}

void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_diagnoses *d = tcpdiag_state_diagnoses();
    const td_diagnosis *diag = d ? td_diagnosis_of(d, flow) : NULL;
    uint32_t at, place;
    char summary[TD_SUMMARY_MAX + 1];

    if (!diag)
        return;
    index_findings(d);
    capture_expert(tree, pinfo, tvb, d);
    stall_expert(tree, pinfo, tvb, d);
    if (!is_finding((td_cause)diag->cause))
        return;
    at = diag->evidence_frame ? diag->evidence_frame : flow->first_frame;
    if (pinfo->num != at)
        return;
    place = g_array_index(rank_of_flow, uint32_t, flow->index);
    if (place & RANK_LEAD) {
        finding_expert(tree, pinfo, tvb, d, place & ~RANK_LEAD);
        return;
    }
    td_advice_summary(d, flow, summary, sizeof summary);
    proto_tree_add_expert_format(tree, pinfo, finding_item(TD_E_FINDING_FLOW_HOST_STALL, (td_cause)diag->cause),
                                 tvb, 0, 0, "In finding %u: %s", place, summary);
}

void tcpdiag_diag_register(module_t *module, td_stall_config *stall)
{
    register_cleanup_routine(forget_findings);
    prefs_register_uint_preference(module, "stall_min_ms", "Host stall: silence at least (ms)",
        "A host that sends nothing on any of its flows for this long, while flows wait on it, stalled.",
        10, &stall->min_ms);
    prefs_register_uint_preference(module, "stall_min_flows", "Host stall: flows waiting at least",
        "Flows that must have waited on the silent host: one flow's pause is not a host stall.",
        10, &stall->min_flows);
}
