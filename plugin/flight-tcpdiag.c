/* tcpdiag.flight: bytes in flight, plateaus and the limiting factor, as fields
 * (one subtree per data direction) and expert info. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "items.h"
#include "tcpdiag.h"

static int hf_dir = -1;
static int hf_seen_from = -1;
static int hf_ack_lag = -1;
static int hf_mss = -1;
static int hf_rounds = -1;
static int hf_max = -1;
static int hf_rwnd = -1;
static int hf_retransmissions = -1;
static int hf_limit = -1;
static int hf_reason = -1;
static int hf_share[TD_LIMIT_COUNT] = { -1, -1, -1, -1, -1 };
static int hf_throughput = -1;
static int hf_plateau = -1;
static int hf_plateau_mss = -1;
static int hf_plateau_rounds = -1;
static int hf_plateau_share = -1;
static int hf_plateau_start = -1;
static int hf_plateau_onset = -1;
static int hf_plateau_limit = -1;
static int hf_plateau_round_time = -1;
static int hf_headroom = -1;
static int hf_ceiling = -1;
static gint ett_flight = -1;

static expert_field ei_sender_limited = EI_INIT;
static expert_field ei_rwnd_limited = EI_INIT;

static unsigned sender_warn_mss = 16;

static void add_plateau_items(proto_tree *tree, tvbuff_t *tvb, const td_flight *f, const td_plateau *p)
{
    add_uint(tree, hf_plateau, tvb, p->high);
    if (f->mss)
        add_ratio(tree, hf_plateau_mss, tvb, (double)p->high / f->mss);
    add_uint(tree, hf_plateau_rounds, tvb, p->rounds);
    add_ratio(tree, hf_plateau_share, tvb,
               100.0 * (double)p->ns / (double)td_flight_measured_ns(f));
    proto_item_set_generated(proto_tree_add_uint(tree, hf_plateau_start, tvb, 0, 0, p->start_frame));
    add_string(tree, hf_plateau_onset, tvb, td_onset_name(p->onset));
    add_string(tree, hf_plateau_limit, tvb, td_limit_name(p->limit));
    add_relative_time(tree, hf_plateau_round_time, tvb, p->ns / p->rounds);
    if (p->min_window != UINT32_MAX && p->min_window >= p->high)
        add_uint(tree, hf_headroom, tvb, p->min_window - p->high);
    add_rate(tree, hf_ceiling, tvb, td_plateau_ceiling(p));
}

static void add_direction(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender)
{
    const td_flight *f = td_flow_flight(flow, sender);
    const char *dir = td_flow_dir_name(flow, sender);
    const char *why;
    td_limit limit = td_flight_limit(f, &why);
    char label[TD_DIR_LABEL_SIZE];

    td_flow_dir_label(flow, sender, label, sizeof label);
    proto_tree *sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_flight, NULL,
                                                    "Flight %s: %s", label, td_limit_name(limit));

    if (dir)
        add_string(sub, hf_dir, tvb, dir);
    add_string(sub, hf_limit, tvb, td_limit_name(limit));
    if (why)
        add_string(sub, hf_reason, tvb, why);
    if (f->unknown_reason)
        return;
    add_string(sub, hf_seen_from, tvb, td_seen_from_name(f->ctx.seen_from));
    add_relative_time(sub, hf_ack_lag, tvb, f->lag_ns);
    if (f->mss)
        add_uint(sub, hf_mss, tvb, f->mss);
    add_uint(sub, hf_rounds, tvb, f->rounds);
    add_uint(sub, hf_max, tvb, f->max_flight);
    if (f->ctx.rcv_wscale >= 0)
        add_uint(sub, hf_rwnd, tvb, f->max_window);
    add_uint(sub, hf_retransmissions, tvb, f->retransmissions);
    if (td_flight_measured_ns(f) <= 0)
        return;
    for (int i = TD_LIMIT_RWND; i < TD_LIMIT_COUNT; i++)
        add_ratio(sub, hf_share[i], tvb, td_flight_share(f, (td_limit)i));
    add_rate(sub, hf_throughput, tvb, td_flight_throughput(f));
    if (td_flight_plateau(f))
        add_plateau_items(sub, tvb, f, td_flight_plateau(f));
}

void tcpdiag_flight_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow)
{
    for (int i = 0; i < 2; i++) {
        int sender = td_flow_sender_at(flow, i);
        if (td_flow_flight(flow, sender))
            add_direction(tree, tvb, flow, sender);
    }
}

static void sender_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flight *f,
                          const td_plateau *p)
{
    double share = 100.0 * (double)p->ns / (double)td_flight_measured_ns(f);
    const char *after = p->onset == TD_ONSET_NONE ? "growth" : td_onset_name(p->onset);

    char ceiling[32];

    /* What matters first, within Wireshark's 240 characters. */
    td_format_rate(td_plateau_ceiling(p), ceiling, sizeof ceiling);
    proto_tree_add_expert_format(tree, pinfo, &ei_sender_limited, tvb, 0, 0,
        "Sender holds its flight at %u B (%.1f MSS) for %.0f%% of the transfer (%u round trips, after %s) under a "
        "%u B window, nothing lost; ceiling %s at %.1f ms a round trip",
        p->high, (double)p->high / f->mss, share, p->rounds, after,
        p->min_window == UINT32_MAX ? f->max_window : p->min_window, ceiling, (double)p->ns / p->rounds / 1e6);
}

void tcpdiag_flight_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    for (int sender = 0; sender < 2; sender++) {
        const td_flight *f = td_flow_flight(flow, sender);
        const td_plateau *p;
        const char *why;
        if (!f)
            continue;
        p = td_flight_plateau(f);
        if (p && p->limit == TD_LIMIT_SENDER && pinfo->num == p->start_frame && f->mss &&
            p->high < sender_warn_mss * f->mss)
            sender_expert(tree, pinfo, tvb, f, p);
        if (pinfo->num == f->first_rwnd_frame && td_flight_limit(f, &why) == TD_LIMIT_RWND)
            proto_tree_add_expert_format(tree, pinfo, &ei_rwnd_limited, tvb, 0, 0,
                "The receive window is the bottleneck: flight reached the offered window (at most %u "
                "bytes) for %.0f%% of the transfer time", f->max_window, td_flight_share(f, TD_LIMIT_RWND));
    }
}

void tcpdiag_flight_register(int proto, module_t *module, td_flight_config *cfg)
{
    static hf_register_info hf[] = {
        { &hf_dir, { "Direction", "tcpdiag.flight.dir", FT_STRING, BASE_NONE, NULL, 0x0,
            "Data direction this flight analysis describes: c2s or s2c", HFILL } },
        { &hf_seen_from, { "Seen from", "tcpdiag.flight.seen_from", FT_STRING, BASE_NONE, NULL, 0x0,
            "Capture point relative to this direction's sender: sender, receiver, middle or unknown", HFILL } },
        { &hf_ack_lag, { "ACK lag", "tcpdiag.flight.ack_lag", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
            "Round trip capture point to sender: an ACK seen here counts for the sender this much later", HFILL } },
        { &hf_mss, { "MSS", "tcpdiag.flight.mss", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Largest data segment at or below the receiver's announced MSS", HFILL } },
        { &hf_rounds, { "Round trips", "tcpdiag.flight.rounds", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Acknowledged round trips of data", HFILL } },
        { &hf_max, { "Largest flight", "tcpdiag.flight.max", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Most bytes in flight at any time (sender's view)", HFILL } },
        { &hf_rwnd, { "Largest receive window", "tcpdiag.flight.rwnd", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Largest window the receiver offered, scaled", HFILL } },
        { &hf_retransmissions, { "Retransmissions", "tcpdiag.flight.retransmissions", FT_UINT32, BASE_DEC,
            NULL, 0x0, "Data segments that resent sequence space already sent", HFILL } },
        { &hf_limit, { "Limited by", "tcpdiag.flight.limit", FT_STRING, BASE_NONE, NULL, 0x0,
            "Dominant limit: rwnd, cwnd, sender, app or unknown", HFILL } },
        { &hf_reason, { "Why unknown", "tcpdiag.flight.reason", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_share[TD_LIMIT_RWND], { "Receive-window limited (%)", "tcpdiag.flight.rwnd_share",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Share of the measured time", HFILL } },
        { &hf_share[TD_LIMIT_CWND], { "Congestion-window limited (%)", "tcpdiag.flight.cwnd_share",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Share of the measured time", HFILL } },
        { &hf_share[TD_LIMIT_SENDER], { "Sender limited (%)", "tcpdiag.flight.sender_share",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Share of the measured time", HFILL } },
        { &hf_share[TD_LIMIT_APP], { "Application limited (%)", "tcpdiag.flight.app_share",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Share of the measured time", HFILL } },
        { &hf_throughput, { "Throughput (B/s)", "tcpdiag.flight.throughput", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "New payload bytes per second of measured time", HFILL } },
        { &hf_plateau, { "Plateau", "tcpdiag.flight.plateau", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Flight (bytes) of the longest flat run of round trips", HFILL } },
        { &hf_plateau_mss, { "Plateau in MSS", "tcpdiag.flight.plateau_mss", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_plateau_rounds, { "Plateau round trips", "tcpdiag.flight.plateau_rounds", FT_UINT32, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_plateau_share, { "Plateau share (%)", "tcpdiag.flight.plateau_share", FT_DOUBLE, BASE_NONE,
            NULL, 0x0, "Share of the measured time spent on the plateau", HFILL } },
        { &hf_plateau_start, { "Plateau starts", "tcpdiag.flight.plateau_start", FT_FRAMENUM, BASE_NONE,
            NULL, 0x0, NULL, HFILL } },
        { &hf_plateau_onset, { "Plateau onset", "tcpdiag.flight.plateau_onset", FT_STRING, BASE_NONE, NULL, 0x0,
            "What came just before: retransmission, ecn-echo, idle, start or none", HFILL } },
        { &hf_plateau_limit, { "Plateau held by", "tcpdiag.flight.plateau_limit", FT_STRING, BASE_NONE,
            NULL, 0x0, "sender, rwnd, or cwnd (flat where the last loss or echo happened)", HFILL } },
        { &hf_plateau_round_time, { "Plateau round trip", "tcpdiag.flight.plateau_round_time",
            FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0, "Mean round-trip time on the plateau", HFILL } },
        { &hf_headroom, { "Headroom", "tcpdiag.flight.headroom", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Smallest receive window on the plateau minus the plateau", HFILL } },
        { &hf_ceiling, { "Ceiling (B/s)", "tcpdiag.flight.ceiling", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Throughput the plateau allows: plateau per round trip", HFILL } },
    };
    static gint *ett[] = { &ett_flight };
    static ei_register_info ei[] = {
        { &ei_sender_limited, { "tcpdiag.flight.sender_limited", PI_SEQUENCE, PI_NOTE,
            "Flight held flat by the sender far below the receive window", EXPFILL } },
        { &ei_rwnd_limited, { "tcpdiag.flight.rwnd_limited", PI_SEQUENCE, PI_NOTE,
            "The receive window limits the transfer", EXPFILL } },
    };

    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));

    prefs_register_uint_preference(module, "plateau_min_rounds", "Flight: plateau length (round trips)",
        "Consecutive round trips with a flat flight that make a plateau.", 10, &cfg->plateau_min_rounds);
    prefs_register_uint_preference(module, "plateau_band_pct", "Flight: flatness band (%)",
        "Round-trip flights within this share of each other (at least one MSS) count as flat.",
        10, &cfg->plateau_band_pct);
    prefs_register_uint_preference(module, "sender_warn_mss", "Flight: warn below (MSS)",
        "A sender-held plateau below this many MSS raises a warning.", 10, &sender_warn_mss);
}
