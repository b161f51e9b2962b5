/* tcpdiag.diag and tcpdiag.host.stall: the answer per flow as fields (a subtree
 * that opens the tcpdiag tree) and as Expert Information that reads as answers when
 * grouped: one item per cause, titled by it ("Slow flow: window collapse"); per
 * finding of the report (a cause and whose fix it is) one Warning and one Note with
 * the fix, on the evidence packet of its flow that lost most; a Note on each other
 * flow of the finding; a Note per host-wide stall; one Chat with the capture's
 * headline ("diagnosis of 20 flows: ...") on the first flow's first packet. */

#include "ws_compat.h"

#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "items.h"
#include "tcpdiag.h"
#include "advice.h"
#include "report.h"

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

/* Indexed by td_cause; only the causes of a finding (host-stall to app-limited). */
static expert_field ei_finding[TD_CAUSE_COUNT];
static expert_field ei_flow[TD_CAUSE_COUNT];
static expert_field ei_fix = EI_INIT;
static expert_field ei_stall = EI_INIT;
static expert_field ei_capture = EI_INIT;

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
    findings = td_report_findings(d);
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

static void capture_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_diagnoses *d)
{
    GString *headline;

    if (pinfo->num != first_frame_of_capture)
        return;
    headline = g_string_new("Capture: ");
    td_report_headline(d, headline);
    proto_tree_add_expert_format(tree, pinfo, &ei_capture, tvb, 0, 0, "%s", headline->str);
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
    proto_tree_add_expert_format(tree, pinfo, &ei_finding[f->cause], tvb, 0, 0, "Finding %u of %u: %s (%s), %u flow%s%s: %s",
                                 rank, findings->len, who, f->role, f->flows->len, f->flows->len == 1 ? "" : "s",
                                 lost, summary);
    proto_tree_add_expert_format(tree, pinfo, &ei_fix, tvb, 0, 0, "Fix: %s", td_advice_fix(d, f->worst));
}

void tcpdiag_diag_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_diagnoses *d = tcpdiag_diagnoses();
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
    proto_tree_add_expert_format(tree, pinfo, &ei_flow[diag->cause], tvb, 0, 0, "In finding %u: %s",
                                 place, summary);
}

/* "window-collapse" -> "window collapse", "ecn-loss-reaction" -> "ECN loss reaction". */
static char *cause_words(td_cause cause)
{
    char *words = g_strdelimit(g_strdup(td_cause_name(cause)), "-", ' ');

    if (g_str_has_prefix(words, "ecn "))
        memcpy(words, "ECN", 3);
    return words;
}

/* One Warning item and one Note item per cause (a Note for app-limited's finding:
 * the application held the flow back, not the network). Registered once; the
 * names live as long as the program. */
static void register_cause_experts(expert_module_t *module)
{
    static ei_register_info ei[2 * TD_CAUSE_COUNT];
    guint n = 0;

    for (int cause = TD_CAUSE_HOST_STALL; cause <= TD_CAUSE_APP_LIMITED; cause++) {
        char *words = cause_words((td_cause)cause);
        char *key = g_strdelimit(g_strdup(td_cause_name((td_cause)cause)), "-", '_');
        int severity = cause == TD_CAUSE_APP_LIMITED ? PI_NOTE : PI_WARN;

        ei_finding[cause] = (expert_field)EI_INIT;
        ei_flow[cause] = (expert_field)EI_INIT;
        ei[n++] = (ei_register_info){ &ei_finding[cause], { g_strdup_printf("tcpdiag.finding.%s", key), PI_SEQUENCE,
            severity, g_strdup_printf("Slow flow: %s", words), EXPFILL } };
        ei[n++] = (ei_register_info){ &ei_flow[cause], { g_strdup_printf("tcpdiag.finding.%s.flow", key), PI_SEQUENCE,
            PI_NOTE, g_strdup_printf("Slow flow: %s (another flow of the finding)", words), EXPFILL } };
        g_free(words);
        g_free(key);
    }
    expert_register_field_array(module, ei, n);
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
            NULL, 0x0, "Flows of the host open across the silence, waiting or not", HFILL } },
        { &hf_stall_frame, { "Silent since frame", "tcpdiag.host.stall_frame", FT_FRAMENUM, BASE_NONE, NULL,
            0x0, "The host's last packet before the silence", HFILL } },
        { &hf_stall_waited, { "This flow waited", "tcpdiag.host.stall_waited", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, "This flow's own silence, retransmission backoff after the stall included", HFILL } },
    };
    static gint *ett[] = { &ett_diag, &ett_stall };
    static ei_register_info ei[] = {
        { &ei_fix, { "tcpdiag.diag.advice", PI_SEQUENCE, PI_NOTE, "Fix for the finding", EXPFILL } },
        { &ei_stall, { "tcpdiag.host.stalled", PI_SEQUENCE, PI_NOTE, "Host-wide stall", EXPFILL } },
        { &ei_capture, { "tcpdiag.capture", PI_SEQUENCE, PI_CHAT, "tcpdiag: capture diagnosis", EXPFILL } },
    };
    expert_module_t *experts = expert_register_protocol(proto);

    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(experts, ei, array_length(ei));
    register_cause_experts(experts);
    register_cleanup_routine(forget_findings);

    prefs_register_uint_preference(module, "stall_min_ms", "Host stall: silence at least (ms)",
        "A host that sends nothing on any of its flows for this long, while flows wait on it, stalled.",
        10, &stall->min_ms);
    prefs_register_uint_preference(module, "stall_min_flows", "Host stall: flows waiting at least",
        "Flows that must have waited on the silent host: one flow's pause is not a host stall.",
        10, &stall->min_flows);
}
