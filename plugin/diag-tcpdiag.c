/* The answer's per-packet items and Expert Information, on the same packets. As
 * Expert Information that reads as answers when grouped: one item per cause, titled
 * by it ("Slow flow: window collapse"); per finding of the report (a cause and whose
 * fix it is) one Warning and one Note with the fix, on the evidence packet of its
 * flow that lost most; a Note on each other flow of the finding; a Note per host-wide
 * stall; one Chat with the capture's headline ("diagnosis of 20 flows: ...") on the
 * first flow's first packet. As fields, after the Diagnosis subtree of those
 * packets: the finding's rank on each of its flows' evidence packet, what the
 * finding is about on its lead's, the headline and its counts on the first packet
 * (what the Lua window reads). The items are the field table's
 * (engine/field_table.c), their words engine/diagnosis_messages.c's. */

#include "ws_compat.h"

#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "state-tcpdiag.h"
#include "diagnosis_messages.h"

/* The report's findings of the capture being shown, and per flow index its
 * finding's rank (from 1; 0 for a flow in none) and whether it is the finding's
 * flow that lost most (RANK_LEAD), built once from the final diagnosis. */
#define RANK_LEAD 0x80000000u
static const td_diagnoses *findings_of;
static GPtrArray *findings;
static GArray *rank_of_flow;
static uint32_t first_frame_of_capture;

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
    findings = td_findings(d);
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

/* What a packet of a flow carries of the answer: the capture's headline (on the
 * first flow's first packet) and, on the evidence packet of a flow in a finding, the
 * finding's rank and, when it is the finding's flow that lost most, the finding. */
typedef struct answer {
    bool headline;
    guint rank;                 /* from 1; 0: none here */
    const td_finding *lead;     /* NULL but on the lead flow's evidence packet */
    td_cause cause;             /* the flow's */
} answer;

/* False for a flow without a diagnosis (the capture not read whole yet). */
static bool answer_at(const td_diagnoses *d, const td_flow *flow, uint32_t frame, answer *a)
{
    const td_diagnosis *diag = d ? td_diagnosis_of(d, flow) : NULL;
    uint32_t place;

    if (!diag)
        return false;
    index_findings(d);
    *a = (answer){ .headline = frame == first_frame_of_capture, .cause = (td_cause)diag->cause };
    if (!td_cause_is_finding(a->cause) || frame != (diag->evidence_frame ? diag->evidence_frame : flow->first_frame))
        return true;
    place = g_array_index(rank_of_flow, uint32_t, flow->index);
    a->rank = place & ~RANK_LEAD;
    if (place & RANK_LEAD)
        a->lead = g_ptr_array_index(findings, a->rank - 1);
    return true;
}

void tcpdiag_diag_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, uint32_t frame)
{
    const td_diagnoses *d = tcpdiag_state_diagnoses();
    answer a;

    if (!answer_at(d, flow, frame, &a))
        return;
    if (a.rank)
        tcpdiag_add_uint(tree, tvb, TD_F_DIAG_FINDING, a.rank);
    if (a.lead) {
        char who[64];
        td_addr_format(a.lead->who, who, sizeof who);
        tcpdiag_add_uint(tree, tvb, TD_F_DIAG_FINDINGS, findings->len);
        tcpdiag_add_string(tree, tvb, TD_F_DIAG_FINDING_WHO, who);
        tcpdiag_add_string(tree, tvb, TD_F_DIAG_FINDING_ROLE, a.lead->role);
        tcpdiag_add_uint(tree, tvb, TD_F_DIAG_FINDING_FLOWS, a.lead->flows->len);
        if (a.lead->lost_ns > 0)
            tcpdiag_add_time(tree, tvb, TD_F_DIAG_FINDING_LOST, a.lead->lost_ns);
        if (a.lead->span_ns > 0 && a.lead->span_ns < a.lead->lost_ns)
            tcpdiag_add_time(tree, tvb, TD_F_DIAG_FINDING_SPAN, a.lead->span_ns);
    }
    if (a.headline) {
        td_tally tally = td_findings_tally(d);
        GString *headline = g_string_new(NULL);
        td_text_headline(d, headline);
        tcpdiag_add_string(tree, tvb, TD_F_CAPTURE_HEADLINE, headline->str);
        g_string_free(headline, TRUE);
        tcpdiag_add_uint(tree, tvb, TD_F_CAPTURE_FLOWS, tally.flows);
        tcpdiag_add_uint(tree, tvb, TD_F_CAPTURE_SLOW, tally.slow);
        tcpdiag_add_uint(tree, tvb, TD_F_CAPTURE_APP_LIMITED, tally.by_application);
        tcpdiag_add_uint(tree, tvb, TD_F_CAPTURE_HEALTHY, tally.healthy);
        tcpdiag_add_uint(tree, tvb, TD_F_CAPTURE_UNDIAGNOSED, tally.undiagnosed);
    }
}

/* A cause's item of a run of the table's expert items kept in cause order (the
 * findings' Warnings, or their other flows' Notes), from the run's first, with the
 * words in message. */
static void add_finding_message(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, td_expert_id first,
                                td_cause cause, GString *message)
{
    tcpdiag_add_message(tree, pinfo, tvb, (td_expert_id)(first + (cause - TD_CAUSE_HOST_STALL)), message);
}

void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_diagnoses *d = tcpdiag_state_diagnoses();
    answer a;
    int stall;
    GString *message;

    if (!answer_at(d, flow, pinfo->num, &a))
        return;
    message = tcpdiag_message();
    if (a.headline) {
        td_message_capture(d, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_CAPTURE, message);
    }
    stall = td_stalls_resumed_at(td_engine_stalls(td_diagnoses_engine(d)), pinfo->num);
    if (stall >= 0) {
        td_message_host_stall(d, (guint)stall, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_HOST_STALLED, message);
    }
    if (a.lead) {
        td_message_finding(d, a.lead, a.rank, findings->len, message);
        add_finding_message(tree, pinfo, tvb, TD_E_FINDING_HOST_STALL, a.lead->cause, message);
        td_message_fix(d, a.lead, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_DIAG_ADVICE, message);
    } else if (a.rank) {
        td_message_in_finding(d, flow, a.rank, message);
        add_finding_message(tree, pinfo, tvb, TD_E_FINDING_FLOW_HOST_STALL, a.cause, message);
    }
}

void tcpdiag_diag_register(void)
{
    register_cleanup_routine(forget_findings);
}
