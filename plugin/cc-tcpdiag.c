/* tcpdiag.cc: congestion signals and the sender's reaction, as fields (one
 * subtree per data direction, event fields on the packets that carry them) and
 * expert info: a Note per response that cut the flight, a Note on a window collapse
 * (the diagnosis carries the Warning). */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "items.h"
#include "tcpdiag.h"
#include "ccid.h"

static int hf_dir = -1;
static int hf_reaction = -1;
static int hf_feedback = -1;
static int hf_ce = -1;
static int hf_ece_episodes = -1;
static int hf_cwr = -1;
static int hf_ace_marks = -1;
static int hf_losses = -1;
static int hf_reductions = -1;
static int hf_ecn_ratio = -1;
static int hf_loss_ratio = -1;
static int hf_collapse = -1;
static int hf_collapse_floor = -1;
static int hf_collapse_floor_mss = -1;
static int hf_collapse_rounds = -1;
static int hf_collapse_time = -1;
static int hf_unobserved = -1;
static int hf_cut_share = -1;
static int hf_control_share = -1;
static int hf_confidence = -1;
static int hf_algorithm = -1;
static int hf_algorithm_why = -1;
static int hf_event = -1;
static int hf_latency = -1;
static int hf_flight_before = -1;
static int hf_flight_after = -1;
static int hf_ratio = -1;
static gint ett_cc = -1;

static expert_field ei_reduction = EI_INIT;
static expert_field ei_collapse = EI_INIT;

static const td_flight_config *config;

static const char *const feedback_names[] = { "none", "classic", "accecn" };

static const char *signal_of(td_cc_event_kind kind)
{
    return kind == TD_CC_LOSS ? "a loss" : kind == TD_CC_ACE ? "AccECN marks" : "an ECN echo";
}

/* Whether signals caused the cuts, how sure that is, and the algorithm it points to. */
static void add_identity(proto_tree *tree, tvbuff_t *tvb, const td_flight *f)
{
    const td_cc *cc = &f->cc;
    const char *why;
    td_cc_algorithm algorithm = td_cc_identify(f, &why);

    if (cc->reaction == TD_REACTION_LOSS_LIKE || cc->reaction == TD_REACTION_NONE) {
        add_ratio(tree, hf_cut_share, tvb, cc->cut_share);
        if (cc->control_share >= 0)
            add_ratio(tree, hf_control_share, tvb, cc->control_share);
        add_string(tree, hf_confidence, tvb, td_cc_confidence(cc, f->mss));
    }
    add_string(tree, hf_algorithm, tvb, td_cc_algorithm_name(algorithm));
    add_string(tree, hf_algorithm_why, tvb, why);
}

static void add_direction(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender)
{
    const td_flight *f = td_flow_flight(flow, sender);
    const td_cc *cc = &f->cc;
    const char *dir = td_flow_dir_name(flow, sender);
    td_reaction reaction = f->unknown_reason ? TD_REACTION_UNKNOWN : cc->reaction;
    char label[TD_DIR_LABEL_SIZE];

    td_flow_dir_label(flow, sender, label, sizeof label);
    proto_tree *sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_cc, NULL, "Congestion %s: %s",
                                                    label, td_reaction_name(reaction));
    const char *unobserved = td_cc_unobserved(&f->dir, &f->cc);

    if (dir)
        add_string(sub, hf_dir, tvb, dir);
    add_string(sub, hf_reaction, tvb, td_reaction_name(reaction));
    if (f->unknown_reason)
        return;
    add_string(sub, hf_feedback, tvb, feedback_names[cc->feedback]);
    add_uint(sub, hf_ce, tvb, cc->ce);
    add_uint(sub, hf_ece_episodes, tvb, cc->ece_episodes);
    add_uint(sub, hf_cwr, tvb, cc->cwr);
    add_uint(sub, hf_ace_marks, tvb, cc->ace_marks);
    add_uint(sub, hf_losses, tvb, cc->losses);
    add_uint(sub, hf_reductions, tvb, cc->reductions);
    if (cc->ecn_ratio >= 0)
        add_ratio(sub, hf_ecn_ratio, tvb, cc->ecn_ratio);
    if (cc->loss_ratio >= 0)
        add_ratio(sub, hf_loss_ratio, tvb, cc->loss_ratio);
    add_string(sub, hf_collapse, tvb, td_cc_collapsed(cc, config) ? "yes" : "no");
    if (td_cc_collapsed(cc, config)) {
        add_uint(sub, hf_collapse_floor, tvb, cc->collapse_floor);
        if (f->mss)
            add_ratio(sub, hf_collapse_floor_mss, tvb, (double)cc->collapse_floor / f->mss);
        add_uint(sub, hf_collapse_rounds, tvb, cc->collapse_rounds);
        add_duration(sub, hf_collapse_time, tvb, cc->collapse_ns);
    }
    if (unobserved)
        add_string(sub, hf_unobserved, tvb, unobserved);
    add_identity(sub, tvb, f);
}

static void add_event(proto_tree *tree, tvbuff_t *tvb, const td_cc_event *e)
{
    add_string(tree, hf_event, tvb, td_cc_event_name((td_cc_event_kind)e->kind));
    if (e->latency_ns >= 0)
        add_duration(tree, hf_latency, tvb, e->latency_ns);
    if (!e->measured)
        return;
    add_uint(tree, hf_flight_before, tvb, e->before);
    add_uint(tree, hf_flight_after, tvb, e->after);
    add_ratio(tree, hf_ratio, tvb, (double)e->after / e->before);
}

void tcpdiag_cc_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, uint32_t frame)
{
    for (int i = 0; i < 2; i++) {
        int sender = td_flow_sender_at(flow, i);
        const td_cc_event *e;
        if (!td_flow_flight(flow, sender))
            continue;
        add_direction(tree, tvb, flow, sender);
        e = td_cc_event_at(&td_flow_flight(flow, sender)->cc, frame);
        if (e)
            add_event(tree, tvb, e);
    }
}

static void collapse_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flight *f)
{
    const td_cc *cc = &f->cc;

    proto_tree_add_expert_format(tree, pinfo, &ei_collapse, tvb, 0, 0,
        "Window collapse: the flight sat at %u bytes (%.1f MSS) for %u round trips (%.2f s) while %s kept "
        "coming", cc->collapse_floor, f->mss ? (double)cc->collapse_floor / f->mss : 0.0, cc->collapse_rounds,
        (double)cc->collapse_ns / 1e9, cc->feedback == TD_FEEDBACK_NONE ? "losses" : "congestion signals");
}


void tcpdiag_cc_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    for (int sender = 0; sender < 2; sender++) {
        const td_flight *f = td_flow_flight(flow, sender);
        const td_cc_event *e;
        if (!f || f->unknown_reason)
            continue;
        if (td_cc_collapsed(&f->cc, config) && pinfo->num == f->cc.collapse_start_frame)
            collapse_expert(tree, pinfo, tvb, f);
        e = td_cc_event_at(&f->cc, pinfo->num);
        /* A Note only where the flight really fell and stayed down: a response that cut
         * nothing (BBR's CWR, a window at its floor) or grew the flight is not news. */
        if (e && td_cc_is_reduction(&f->cc, e))
            proto_tree_add_expert_format(tree, pinfo, &ei_reduction, tvb, 0, 0,
                "Congestion response (%s) to %s: flight %u -> %u bytes (ratio %.2f)",
                td_cc_event_name((td_cc_event_kind)e->kind), signal_of((td_cc_event_kind)e->kind),
                e->before, e->after, (double)e->after / e->before);
    }
}

void tcpdiag_cc_register(int proto, module_t *module, td_flight_config *cfg)
{
    static hf_register_info hf[] = {
        { &hf_dir, { "Direction", "tcpdiag.cc.dir", FT_STRING, BASE_NONE, NULL, 0x0,
            "Data direction whose congestion control this describes: c2s or s2c", HFILL } },
        { &hf_reaction, { "Reaction", "tcpdiag.cc.reaction", FT_STRING, BASE_NONE, NULL, 0x0,
            "How the sender answered congestion signals: loss-like, none, proportional, no-signal or unknown",
            HFILL } },
        { &hf_feedback, { "ECN feedback", "tcpdiag.cc.feedback", FT_STRING, BASE_NONE, NULL, 0x0,
            "none (ECN not negotiated), classic (ECE/CWR) or accecn (ACE counter)", HFILL } },
        { &hf_ce, { "CE marks seen", "tcpdiag.cc.ce", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Data segments of this direction captured with CE", HFILL } },
        { &hf_ece_episodes, { "ECE episodes", "tcpdiag.cc.ece_episodes", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Runs of ACKs echoing ECE", HFILL } },
        { &hf_cwr, { "CWR", "tcpdiag.cc.cwr", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Data segments with CWR: the sender's answers to echoes", HFILL } },
        { &hf_ace_marks, { "ACE marks", "tcpdiag.cc.ace_marks", FT_UINT32, BASE_DEC, NULL, 0x0,
            "CE marks the AccECN receiver counted (ACE increments)", HFILL } },
        { &hf_losses, { "Loss episodes", "tcpdiag.cc.losses", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Recoveries: retransmissions after the previous recovery ended, or resending what it resent", HFILL } },
        { &hf_reductions, { "Reductions", "tcpdiag.cc.reductions", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Responses after which the flight fell below 90 % of its size", HFILL } },
        { &hf_ecn_ratio, { "ECN response ratio", "tcpdiag.cc.ecn_ratio", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Median flight after / before an ECN response (0.7 = a 30 % cut)", HFILL } },
        { &hf_loss_ratio, { "Loss response ratio", "tcpdiag.cc.loss_ratio", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Median flight after / before a loss recovery", HFILL } },
        { &hf_collapse, { "Collapse", "tcpdiag.cc.collapse", FT_STRING, BASE_NONE, NULL, 0x0,
            "yes when repeated reductions keep the flight at a few MSS while signals keep coming", HFILL } },
        { &hf_collapse_floor, { "Collapse floor", "tcpdiag.cc.collapse_floor", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Smallest round-trip flight during the collapse (bytes)", HFILL } },
        { &hf_collapse_floor_mss, { "Collapse floor in MSS", "tcpdiag.cc.collapse_floor_mss", FT_DOUBLE,
            BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_collapse_rounds, { "Collapse round trips", "tcpdiag.cc.collapse_rounds", FT_UINT32, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_collapse_time, { "Time collapsed", "tcpdiag.cc.collapse_time", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, NULL, HFILL } },
        { &hf_unobserved, { "Not observable here", "tcpdiag.cc.unobserved", FT_STRING, BASE_NONE, NULL, 0x0,
            "Events this capture point cannot show, and why", HFILL } },
        { &hf_cut_share, { "Cuts that lasted (%)", "tcpdiag.cc.cut_share", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Measured responses after which the flight stayed below 90 % of its size in both round trips after",
            HFILL } },
        { &hf_control_share, { "Dips without a signal (%)", "tcpdiag.cc.control_share", FT_DOUBLE, BASE_NONE, NULL,
            0x0, "Comparable round trips with no signal near them whose flight dipped as much: the flow as its "
            "own control (absent when fewer than 4)", HFILL } },
        { &hf_confidence, { "Reaction confidence", "tcpdiag.cc.confidence", FT_STRING, BASE_NONE, NULL, 0x0,
            "high, medium or low: how many responses were measured, and whether the flow was its own control",
            HFILL } },
        { &hf_algorithm, { "Congestion control", "tcpdiag.cc.algorithm", FT_STRING, BASE_NONE, NULL, 0x0,
            "The sender's algorithm as its answers show it: cubic-like, reno-like, bbr-like, dctcp-like or unknown",
            HFILL } },
        { &hf_algorithm_why, { "Congestion control: why", "tcpdiag.cc.algorithm_why", FT_STRING, BASE_NONE, NULL,
            0x0, "What the algorithm verdict rests on, or why it abstains", HFILL } },
        { &hf_event, { "Event", "tcpdiag.cc.event", FT_STRING, BASE_NONE, NULL, 0x0,
            "On this packet: ece-start, ece-end, cwr, ace or loss", HFILL } },
        { &hf_latency, { "Latency", "tcpdiag.cc.latency", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
            "ece-start: from the first CE seen; cwr: from the first echo, as the sender saw it", HFILL } },
        { &hf_flight_before, { "Flight before", "tcpdiag.cc.flight_before", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Flight of the round trip before the signal", HFILL } },
        { &hf_flight_after, { "Flight after", "tcpdiag.cc.flight_after", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Smaller flight of the two round trips after the response", HFILL } },
        { &hf_ratio, { "Response ratio", "tcpdiag.cc.ratio", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Flight after / before", HFILL } },
    };
    static gint *ett[] = { &ett_cc };
    static ei_register_info ei[] = {
        { &ei_reduction, { "tcpdiag.cc.reduction", PI_SEQUENCE, PI_NOTE,
            "Congestion response and the cut it made", EXPFILL } },
        { &ei_collapse, { "tcpdiag.cc.window_collapse", PI_SEQUENCE, PI_NOTE,
            "Window collapse under repeated congestion signals", EXPFILL } },
    };

    config = cfg;
    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));

    prefs_register_uint_preference(module, "collapse_mss", "Collapse: flight at most (MSS)",
        "A round trip with at most this many MSS in flight, while signals keep coming, counts "
        "towards a collapse.", 10, &cfg->collapse_mss);
    prefs_register_uint_preference(module, "collapse_min_rounds", "Collapse: length (round trips)",
        "Round trips at the floor that make a collapse.", 10, &cfg->collapse_min_rounds);
}
