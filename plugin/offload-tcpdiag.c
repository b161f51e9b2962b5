/* tcpdiag.offload: the segment-size profile and the offload verdict, one
 * subtree per data direction, and a Note where a cap begins. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "items.h"
#include "tcpdiag.h"

static int hf_dir = -1;
static int hf_verdict = -1;
static int hf_reason = -1;
static int hf_mss = -1;
static int hf_mss_source = -1;
static int hf_segments = -1;
static int hf_max = -1;
static int hf_median = -1;
static int hf_p95 = -1;
static int hf_super_packets = -1;
static int hf_super_share = -1;
static int hf_ip_len_zero = -1;
static int hf_cap = -1;
static int hf_cap_mss = -1;
static int hf_cap_start = -1;
static int hf_cap_cause = -1;
static gint ett_offload = -1;

static expert_field ei_capped = EI_INIT;

static void add_direction(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender)
{
    const td_flight *f = td_flow_flight(flow, sender);
    const char *dir = td_flow_dir_name(flow, sender);
    const td_offload_result *r = &f->seg.result;
    char label[TD_DIR_LABEL_SIZE];

    td_flow_dir_label(flow, sender, label, sizeof label);
    proto_tree *sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_offload, NULL, "Offload %s: %s",
                                                    label, td_offload_verdict_name(r->verdict));

    if (dir)
        add_string(sub, hf_dir, tvb, dir);
    add_string(sub, hf_verdict, tvb, td_offload_verdict_name(r->verdict));
    if (r->reason)
        add_string(sub, hf_reason, tvb, r->reason);
    if (f->mss) {
        add_uint(sub, hf_mss, tvb, f->mss);
        add_string(sub, hf_mss_source, tvb, td_offload_mss_source(&f->dir));
    }
    add_uint(sub, hf_segments, tvb, f->seg.segments);
    add_uint(sub, hf_max, tvb, f->seg.max_payload);
    add_uint(sub, hf_median, tvb, r->median);
    add_uint(sub, hf_p95, tvb, r->p95);
    add_uint(sub, hf_super_packets, tvb, f->seg.super_packets);
    add_ratio(sub, hf_super_share, tvb, r->super_share);
    add_uint(sub, hf_ip_len_zero, tvb, f->seg.ip_len_zero);
    if (r->verdict == TD_OFFLOAD_CAPPED) {
        add_uint(sub, hf_cap, tvb, r->cap);
        if (f->mss)
            add_ratio(sub, hf_cap_mss, tvb, (double)r->cap / f->mss);
        proto_item_set_generated(proto_tree_add_uint(sub, hf_cap_start, tvb, 0, 0, r->cap_start_frame));
    }
    if (r->verdict == TD_OFFLOAD_CAPPED || r->verdict == TD_OFFLOAD_MSS_CAPPED)
        add_string(sub, hf_cap_cause, tvb, td_cap_cause_name(r->cap_cause));
}

void tcpdiag_offload_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow)
{
    for (int i = 0; i < 2; i++) {
        int sender = td_flow_sender_at(flow, i);
        if (td_flow_flight(flow, sender))
            add_direction(tree, tvb, flow, sender);
    }
}

static const char *cause_text(td_cap_cause cause)
{
    switch (cause) {
    case TD_CAP_CAUSE_WINDOW_COLLAPSE:
        return ": a symptom of the window collapse (repeated cwnd reductions), not a NIC limit";
    case TD_CAP_CAUSE_FLIGHT_PLATEAU:
        return ": every burst is the whole flight the sender allows (see tcpdiag.flight)";
    case TD_CAP_CAUSE_NONE:
        break;
    }
    return "";
}

void tcpdiag_offload_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    for (int sender = 0; sender < 2; sender++) {
        const td_flight *f = td_flow_flight(flow, sender);
        const td_offload_result *r = f ? &f->seg.result : NULL;
        if (r && r->verdict == TD_OFFLOAD_CAPPED && pinfo->num == r->cap_start_frame)
            proto_tree_add_expert_format(tree, pinfo, &ei_capped, tvb, 0, 0,
                "From here on no super-packet exceeds %u bytes (%.1f x MSS)%s", r->cap,
                f->mss ? (double)r->cap / f->mss : 0.0, cause_text(r->cap_cause));
    }
}

void tcpdiag_offload_register(int proto)
{
    static hf_register_info hf[] = {
        { &hf_dir, { "Direction", "tcpdiag.offload.dir", FT_STRING, BASE_NONE, NULL, 0x0,
            "Data direction this profile describes: c2s or s2c", HFILL } },
        { &hf_verdict, { "Offload", "tcpdiag.offload.verdict", FT_STRING, BASE_NONE, NULL, 0x0,
            "offloaded, coalesced, mss-capped, capped or unknown", HFILL } },
        { &hf_reason, { "Why unknown", "tcpdiag.offload.reason", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_mss, { "MSS", "tcpdiag.offload.mss", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Largest segment at or below the receiver's announced MSS", HFILL } },
        { &hf_mss_source, { "MSS from", "tcpdiag.offload.mss_source", FT_STRING, BASE_NONE, NULL, 0x0,
            "handshake, or inferred from the segments when the MSS option was not seen", HFILL } },
        { &hf_segments, { "Data segments", "tcpdiag.offload.segments", FT_UINT32, BASE_DEC, NULL, 0x0,
            NULL, HFILL } },
        { &hf_max, { "Largest payload", "tcpdiag.offload.max", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_median, { "Median payload", "tcpdiag.offload.median", FT_UINT32, BASE_DEC, NULL, 0x0,
            "To the MSS: sizes are counted in MSS steps", HFILL } },
        { &hf_p95, { "95th percentile payload", "tcpdiag.offload.p95", FT_UINT32, BASE_DEC, NULL, 0x0,
            "To the MSS", HFILL } },
        { &hf_super_packets, { "Super-packets", "tcpdiag.offload.super_packets", FT_UINT32, BASE_DEC,
            NULL, 0x0, "Segments carrying more than the announced MSS", HFILL } },
        { &hf_super_share, { "Bytes in super-packets (%)", "tcpdiag.offload.super_share", FT_DOUBLE,
            BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_ip_len_zero, { "IP length 0", "tcpdiag.offload.ip_len_zero", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Segments whose IPv4 total length is 0: TSO packets as their sender captured them", HFILL } },
        { &hf_cap, { "Cap", "tcpdiag.offload.cap", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Size no super-packet exceeds from cap_start on (bytes)", HFILL } },
        { &hf_cap_mss, { "Cap in MSS", "tcpdiag.offload.cap_mss", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_cap_start, { "Cap from", "tcpdiag.offload.cap_start", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
            "First super-packet of the capped stretch", HFILL } },
        { &hf_cap_cause, { "Cap cause", "tcpdiag.offload.cap_cause", FT_STRING, BASE_NONE, NULL, 0x0,
            "window-collapse, flight-plateau, or none (not explained by the flow itself)", HFILL } },
    };
    static gint *ett[] = { &ett_offload };
    static ei_register_info ei[] = {
        { &ei_capped, { "tcpdiag.offload.capped", PI_SEQUENCE, PI_NOTE,
            "Super-packets capped below what the flow could send", EXPFILL } },
    };

    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));
}
