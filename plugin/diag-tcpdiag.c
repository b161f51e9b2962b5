/* tcpdiag.diag and tcpdiag.host.stall: the answer per flow as fields (a subtree
 * that opens the tcpdiag tree) and as expert info: one Warning per slow flow
 * carrying its summary, one Note with the fix, one Warning per host-wide stall. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "items.h"
#include "tcpdiag.h"
#include "advice.h"

static int hf_cause = -1;
static int hf_causes = -1;
static int hf_summary = -1;
static int hf_fix = -1;
static int hf_confirm = -1;
static int hf_slowdown = -1;
static int hf_lost = -1;
static int hf_reference = -1;
static int hf_peers = -1;
static int hf_reason = -1;
static int hf_evidence = -1;
static int hf_stall = -1;
static int hf_stall_start = -1;
static int hf_stall_duration = -1;
static int hf_stall_flows_hit = -1;
static int hf_stall_flows_active = -1;
static int hf_stall_frame = -1;
static int hf_stall_waited = -1;
static gint ett_diag = -1;
static gint ett_stall = -1;

static expert_field ei_slow = EI_INIT;
static expert_field ei_fix = EI_INIT;
static expert_field ei_stall = EI_INIT;

static bool is_finding(td_cause cause)
{
    return cause != TD_CAUSE_NONE && cause != TD_CAUSE_UNKNOWN;
}

static void add_stall_items(proto_tree *tree, tvbuff_t *tvb, const td_diagnoses *d, const td_flow *flow)
{
    const td_stalls *stalls = td_engine_stalls(td_diagnoses_engine(d));
    const td_stall_hit *hit = td_stalls_hit(stalls, flow->index);
    const td_stall *stall;
    proto_tree *sub;
    char host[64];

    if (!hit)
        return;
    stall = td_stalls_at(stalls, hit->stall);
    td_addr_format(&stall->host, host, sizeof host);
    sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_stall, NULL, "Host stall: %s silent for %.2f s",
                                        host, (double)(stall->end_ns - stall->start_ns) / 1e9);
    add_string(sub, hf_stall, tvb, host);
    add_relative_time(sub, hf_stall_start, tvb, stall->start_ns);
    add_relative_time(sub, hf_stall_duration, tvb, stall->end_ns - stall->start_ns);
    add_uint(sub, hf_stall_flows_hit, tvb, stall->flows_hit);
    add_uint(sub, hf_stall_flows_active, tvb, td_diagnoses_stall_active(d, hit->stall));
    proto_item_set_generated(proto_tree_add_uint(sub, hf_stall_frame, tvb, 0, 0, stall->last_frame));
    add_relative_time(sub, hf_stall_waited, tvb, hit->wait_end_ns - hit->wait_start_ns);
}

void tcpdiag_diag_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow)
{
    const td_diagnoses *d = tcpdiag_diagnoses();
    const td_diagnosis *diag = d ? td_diagnosis_of(d, flow) : NULL;
    char summary[TD_SUMMARY_MAX + 1], causes[256];
    const char *fix;
    proto_tree *sub;

    if (!diag)
        return;
    td_advice_summary(d, flow, summary, sizeof summary);
    sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_diag, NULL, "Diagnosis: %s: %s",
                                        td_cause_name((td_cause)diag->cause), summary);
    /* The fix right under the one-line answer: the two lines an analyst needs. */
    fix = td_advice_fix(d, flow);
    if (fix)
        add_string(sub, hf_fix, tvb, fix);
    add_string(sub, hf_cause, tvb, td_cause_name((td_cause)diag->cause));
    add_string(sub, hf_summary, tvb, summary);
    if (fix)
        add_string(sub, hf_confirm, tvb, td_advice_confirm(d, flow));
    td_causes_list(diag->causes, causes, sizeof causes);
    add_string(sub, hf_causes, tvb, causes);
    if (is_finding((td_cause)diag->cause)) {
        add_string(sub, hf_reference, tvb, td_reference_name((td_reference)diag->reference));
        if (diag->peers)
            add_uint(sub, hf_peers, tvb, diag->peers);
        if (diag->slowdown > 0)
            add_ratio(sub, hf_slowdown, tvb, diag->slowdown);
        if (diag->lost_ns >= 0)
            add_duration(sub, hf_lost, tvb, diag->lost_ns);
        if (diag->evidence_frame)
            proto_item_set_generated(proto_tree_add_uint(sub, hf_evidence, tvb, 0, 0, diag->evidence_frame));
    }
    if (diag->reason)
        add_string(sub, hf_reason, tvb, diag->reason);
    add_stall_items(sub, tvb, d, flow);
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
    proto_tree_add_expert_format(tree, pinfo, &ei_stall, tvb, 0, 0,
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
    proto_tree_add_expert_format(tree, pinfo, &ei_slow, tvb, 0, 0, "%s: %s",
                                 td_cause_name((td_cause)diag->cause), summary);
    proto_tree_add_expert_format(tree, pinfo, &ei_fix, tvb, 0, 0, "Fix: %s", td_advice_fix(d, flow));
}

void tcpdiag_diag_register(int proto, module_t *module, td_stall_config *stall)
{
    static hf_register_info hf[] = {
        { &hf_cause, { "Cause", "tcpdiag.diag.cause", FT_STRING, BASE_NONE, NULL, 0x0,
            "Why the flow was slow: none, host-stall, ecn-blackhole, window-collapse, missing-options, "
            "receive-window, sender-limited, offload-capped, ecn-loss-reaction, path-loss, app-limited or "
            "unknown (docs/diagnosis.md)", HFILL } },
        { &hf_causes, { "Causes", "tcpdiag.diag.causes", FT_STRING, BASE_NONE, NULL, 0x0,
            "Every cause that holds, in order of precedence, or none", HFILL } },
        { &hf_summary, { "Summary", "tcpdiag.diag.summary", FT_STRING, BASE_NONE, NULL, 0x0,
            "The diagnosis in one sentence with its numbers", HFILL } },
        { &hf_fix, { "Fix", "tcpdiag.diag.fix", FT_STRING, BASE_NONE, NULL, 0x0,
            "The remedy the evidence points to, with the knob", HFILL } },
        { &hf_confirm, { "Confirm", "tcpdiag.diag.confirm", FT_STRING, BASE_NONE, NULL, 0x0,
            "How to confirm the diagnosis", HFILL } },
        { &hf_slowdown, { "Slowdown", "tcpdiag.diag.slowdown", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "The reference's rate / this flow's rate", HFILL } },
        { &hf_lost, { "Time lost", "tcpdiag.diag.lost", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
            "Time the cause cost against the reference", HFILL } },
        { &hf_reference, { "Reference", "tcpdiag.diag.reference", FT_STRING, BASE_NONE, NULL, 0x0,
            "What the cost is measured against: client-flows, sender-flows, window-ceiling, own-rate or none",
            HFILL } },
        { &hf_peers, { "Flows compared with", "tcpdiag.diag.peers", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Size of the reference group (client-flows, sender-flows)", HFILL } },
        { &hf_reason, { "Reason", "tcpdiag.diag.reason", FT_STRING, BASE_NONE, NULL, 0x0,
            "Why the cause is unknown, or what none rests on", HFILL } },
        { &hf_evidence, { "Evidence at frame", "tcpdiag.diag.frame", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            "Where the primary cause shows first", HFILL } },
        { &hf_stall, { "Stalled host", "tcpdiag.host.stall", FT_STRING, BASE_NONE, NULL, 0x0,
            "Address of a host that fell silent on every flow while this one waited on it", HFILL } },
        { &hf_stall_start, { "Stall start (epoch)", "tcpdiag.host.stall_start", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, "The host's last packet before the silence, in seconds since the epoch (as frame.time_epoch)",
            HFILL } },
        { &hf_stall_duration, { "Stall duration", "tcpdiag.host.stall_duration", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, "From the host's last packet before the silence to its first after", HFILL } },
        { &hf_stall_flows_hit, { "Flows waiting", "tcpdiag.host.stall_flows_hit", FT_UINT32, BASE_DEC, NULL,
            0x0, "Flows of the host that waited on it through the silence", HFILL } },
        { &hf_stall_flows_active, { "Flows open", "tcpdiag.host.stall_flows_active", FT_UINT32, BASE_DEC,
            NULL, 0x0, "Flows of the host open when it came back (begun before), waiting or not", HFILL } },
        { &hf_stall_frame, { "Silent since frame", "tcpdiag.host.stall_frame", FT_FRAMENUM, BASE_NONE, NULL,
            0x0, "The host's last packet before the silence", HFILL } },
        { &hf_stall_waited, { "This flow waited", "tcpdiag.host.stall_waited", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, "This flow's own silence, retransmission backoff after the stall included", HFILL } },
    };
    static gint *ett[] = { &ett_diag, &ett_stall };
    static ei_register_info ei[] = {
        { &ei_slow, { "tcpdiag.diag.slow", PI_SEQUENCE, PI_WARN, "Why this flow was slow", EXPFILL } },
        { &ei_fix, { "tcpdiag.diag.advice", PI_SEQUENCE, PI_NOTE, "What to do about it", EXPFILL } },
        { &ei_stall, { "tcpdiag.host.stalled", PI_SEQUENCE, PI_WARN, "Host-wide stall", EXPFILL } },
    };

    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));

    prefs_register_uint_preference(module, "stall_min_ms", "Host stall: silence at least (ms)",
        "A host that sends nothing on any of its flows for this long, while flows wait on it, stalled.",
        10, &stall->min_ms);
    prefs_register_uint_preference(module, "stall_min_flows", "Host stall: flows waiting at least",
        "Flows that must have waited on the silent host: one flow's pause is not a host stall.",
        10, &stall->min_flows);
}
