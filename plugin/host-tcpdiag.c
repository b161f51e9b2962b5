/* tcpdiag.host and tcpdiag.sender: the per-host rules of engine/hosts.c shown on the
 * first packet of each flow they concern, their Notes, and `-z tcpdiag,hosts`.
 * Nothing here runs per packet: one lookup at a flow's first packet. */

#include "ws_compat.h"

#include <stdio.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include "items.h"
#include "tcpdiag.h"
#include "report.h"

static int hf_conns = -1;
static int hf_ecn_requested = -1;
static int hf_ecn_negotiated = -1;
static int hf_ecn_share = -1;
static int hf_ecn_median_duration = -1;
static int hf_other_median_duration = -1;
static int hf_ecn_median_throughput = -1;
static int hf_other_median_throughput = -1;
static int hf_ecn_slowdown = -1;
static int hf_opts_missing_conns = -1;
static int hf_opts_share = -1;
static int hf_offload = -1;
static int hf_offloaded_flows = -1;
static int hf_capped_flows = -1;
static int hf_capped_common = -1;
static int hf_capped_median_throughput = -1;
static int hf_offloaded_median_throughput = -1;
static gint ett_client = -1;
static gint ett_sender = -1;

static expert_field ei_ecn_slower = EI_INIT;
static expert_field ei_offload_unused = EI_INIT;

/* A median duration: the field keeps seconds, the label reads as the other durations do. */
static void add_seconds(proto_tree *tree, int hf, tvbuff_t *tvb, double seconds)
{
    char text[32];

    if (seconds < 0)
        return;
    td_format_duration((int64_t)(seconds * 1e9), text, sizeof text);
    proto_item_set_generated(proto_tree_add_double_format_value(tree, hf, tvb, 0, 0, seconds, "%s", text));
}

static void add_known_rate(proto_tree *tree, int hf, tvbuff_t *tvb, double bytes_per_s)
{
    if (bytes_per_s >= 0)
        add_rate(tree, hf, tvb, bytes_per_s);
}

static void add_client_items(proto_tree *tree, tvbuff_t *tvb, const td_client_summary *s)
{
    char host[64], share[96];
    proto_tree *sub;

    td_addr_format(&s->addr, host, sizeof host);
    sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_client, NULL,
                                        "Client %s: %u of %u connections asked for ECN, %u negotiated it", host,
                                        s->ecn_requested, s->conns, s->ecn_negotiated);
    add_uint(sub, hf_conns, tvb, s->conns);
    add_uint(sub, hf_ecn_requested, tvb, s->ecn_requested);
    add_uint(sub, hf_ecn_negotiated, tvb, s->ecn_negotiated);
    g_snprintf(share, sizeof share, "%u of %u requested ECN", s->ecn_requested, s->conns);
    add_string(sub, hf_ecn_share, tvb, share);
    add_seconds(sub, hf_ecn_median_duration, tvb, s->ecn_median_duration_s);
    add_seconds(sub, hf_other_median_duration, tvb, s->other_median_duration_s);
    add_known_rate(sub, hf_ecn_median_throughput, tvb, s->ecn_median_rate);
    add_known_rate(sub, hf_other_median_throughput, tvb, s->other_median_rate);
    if (s->ecn_slowdown > 0)
        add_ratio(sub, hf_ecn_slowdown, tvb, s->ecn_slowdown);
    add_uint(sub, hf_opts_missing_conns, tvb, s->opts_missing);
    g_snprintf(share, sizeof share, "%u of %u connections sent SYNs without wscale, sack or ts", s->opts_missing,
               s->opts_known);
    add_string(sub, hf_opts_share, tvb, share);
}

static void add_sender_items(proto_tree *tree, tvbuff_t *tvb, const td_sender_summary *s)
{
    char host[64], common[64];
    proto_tree *sub;

    td_addr_format(&s->addr, host, sizeof host);
    td_common_traits(s->common, common, sizeof common);
    sub = proto_tree_add_subtree_format(tree, tvb, 0, 0, ett_sender, NULL, "Sender %s: offload %s (%u offloaded, %u not)",
                                        host, td_sender_offload_name((td_sender_offload)s->offload),
                                        s->offloaded_flows, s->capped_flows);
    add_string(sub, hf_offload, tvb, td_sender_offload_name((td_sender_offload)s->offload));
    add_uint(sub, hf_offloaded_flows, tvb, s->offloaded_flows);
    add_uint(sub, hf_capped_flows, tvb, s->capped_flows);
    if (s->offload == TD_SENDER_OFFLOAD_MIXED)
        add_string(sub, hf_capped_common, tvb, common);
    add_known_rate(sub, hf_capped_median_throughput, tvb, s->capped_median_rate);
    add_known_rate(sub, hf_offloaded_median_throughput, tvb, s->offloaded_median_rate);
}

/* The host rules a flow's first packet carries (the client's, then its busiest
 * sender's); a sender whose offload is unknown says nothing. */
static const td_sender_summary *known_sender(const td_hosts *hosts, const td_flow *flow)
{
    const td_sender_summary *s = td_hosts_sender_of(hosts, flow);
    return s && s->offload != TD_SENDER_OFFLOAD_UNKNOWN ? s : NULL;
}

static bool at_flow_start(const td_flow *flow, uint32_t frame)
{
    return frame == flow->first_frame && td_flow_roles_known(flow);
}

void tcpdiag_host_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, uint32_t frame)
{
    const td_hosts *hosts = tcpdiag_hosts();
    const td_client_summary *client;
    const td_sender_summary *sender;

    if (!hosts || !at_flow_start(flow, frame))
        return;
    if ((client = td_hosts_client_of(hosts, flow)) != NULL)
        add_client_items(tree, tvb, client);
    if ((sender = known_sender(hosts, flow)) != NULL)
        add_sender_items(tree, tvb, sender);
}

void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_hosts *hosts = tcpdiag_hosts();
    const td_client_summary *client;
    char host[64], common[64], slow[32], fast[32];

    if (!hosts || !at_flow_start(flow, pinfo->num))
        return;
    /* the cheap test first: most flows of a flood never negotiated ECN */
    client = td_ecn_negotiated(flow->ecn_outcome) ? td_hosts_client_of(hosts, flow) : NULL;
    if (client && client->ecn_slower) {
        td_addr_format(&client->addr, host, sizeof host);
        td_format_rate(client->ecn_median_rate, slow, sizeof slow);
        td_format_rate(client->other_median_rate, fast, sizeof fast);
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_slower, tvb, 0, 0,
                                     "ECN flows of %s are %.1fx slower than its other flows (median %s vs %s)", host,
                                     client->ecn_slowdown, slow, fast);
    }
    if (td_hosts_offload_unused(hosts, flow)) {
        const td_sender_summary *s = td_hosts_sender_of(hosts, flow);
        td_common_traits(s->common, common, sizeof common);
        td_format_rate(s->capped_median_rate, slow, sizeof slow);
        td_format_rate(s->offloaded_median_rate, fast, sizeof fast);
        proto_tree_add_expert_format(tree, pinfo, &ei_offload_unused, tvb, 0, 0,
                                     "Offload not used on this flow while %u other flows from this host use it "
                                     "(in common: %s; median %s vs %s)",
                                     s->offloaded_flows, common, slow, fast);
    }
}

/* ---------------------------------------------------------------- -z tcpdiag,hosts */

static void draw_hosts(void *tapdata _U_)
{
    GString *text = g_string_new("");

    /* tshark draws after its last pass: the capture has been read in full, also
     * without -2. */
    td_report_hosts_framed(tcpdiag_hosts(), text);
    fputs(text->str, stdout);
    g_string_free(text, TRUE);
}

static td_stat_init_result init_hosts(const char *opt_arg _U_, void *userdata _U_)
{
    GString *error = register_tap_listener("tcpdiag", NULL, NULL, TL_REQUIRES_NOTHING, NULL, NULL, draw_hosts, NULL);

    if (error) {
        fprintf(stderr, "tshark: couldn't register tcpdiag,hosts tap: %s\n", error->str);
        g_string_free(error, TRUE);
    }
    TD_STAT_INIT_RETURN(error == NULL);
}

void tcpdiag_host_register(int proto, module_t *module, td_hosts_config *cfg)
{
    static hf_register_info hf[] = {
        { &hf_conns, { "Connections from this client", "tcpdiag.host.conns", FT_UINT32, BASE_DEC, NULL, 0x0,
            "Connections whose SYN was captured, of a client at least one of whose flows carried data", HFILL } },
        { &hf_ecn_requested, { "Connections that requested ECN", "tcpdiag.host.ecn_requested", FT_UINT32, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_ecn_negotiated, { "Connections that negotiated ECN", "tcpdiag.host.ecn_negotiated", FT_UINT32,
            BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_ecn_share, { "ECN requests", "tcpdiag.host.ecn_share", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
        { &hf_ecn_median_duration, { "Median duration of ECN flows", "tcpdiag.host.ecn_median_duration", FT_DOUBLE,
            BASE_NONE, NULL, 0x0, "Seconds", HFILL } },
        { &hf_other_median_duration, { "Median duration of other flows", "tcpdiag.host.other_median_duration",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Seconds", HFILL } },
        { &hf_ecn_median_throughput, { "Median throughput of ECN flows", "tcpdiag.host.ecn_median_throughput",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Bytes per second (payload of both directions / duration)", HFILL } },
        { &hf_other_median_throughput, { "Median throughput of other flows", "tcpdiag.host.other_median_throughput",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Bytes per second (payload of both directions / duration)", HFILL } },
        { &hf_ecn_slowdown, { "ECN slowdown", "tcpdiag.host.ecn_slowdown", FT_DOUBLE, BASE_NONE, NULL, 0x0,
            "Other flows' median throughput / ECN flows' median throughput", HFILL } },
        { &hf_opts_missing_conns, { "Connections whose SYN lacked window scaling, SACK or timestamps",
            "tcpdiag.host.opts_missing_conns", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_opts_share, { "SYNs without options", "tcpdiag.host.opts_share", FT_STRING, BASE_NONE, NULL, 0x0, NULL,
            HFILL } },
        { &hf_offload, { "Offload on this sender", "tcpdiag.sender.offload", FT_STRING, BASE_NONE, NULL, 0x0,
            "mixed (some flows offloaded, some not), all-capped, all-offloaded or unknown", HFILL } },
        { &hf_offloaded_flows, { "Flows from this sender that used offload", "tcpdiag.sender.offloaded_flows",
            FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
        { &hf_capped_flows, { "Flows from this sender that did not", "tcpdiag.sender.capped_flows", FT_UINT32,
            BASE_DEC, NULL, 0x0, "Capped or mss-capped", HFILL } },
        { &hf_capped_common, { "What the flows without offload have in common", "tcpdiag.sender.capped_common",
            FT_STRING, BASE_NONE, NULL, 0x0, "ecn, destination, retransmission (comma-separated), or nothing", HFILL } },
        { &hf_capped_median_throughput, { "Median throughput of the flows without offload",
            "tcpdiag.sender.capped_median_throughput", FT_DOUBLE, BASE_NONE, NULL, 0x0, "Bytes per second", HFILL } },
        { &hf_offloaded_median_throughput, { "Median throughput of the offloaded flows",
            "tcpdiag.sender.offloaded_median_throughput", FT_DOUBLE, BASE_NONE, NULL, 0x0, "Bytes per second",
            HFILL } },
    };
    static gint *ett[] = { &ett_client, &ett_sender };
    static ei_register_info ei[] = {
        /* Notes: the finding (tcpdiag.finding.<cause>) carries the Warning and the fix. */
        { &ei_ecn_slower, { "tcpdiag.host.ecn_slower", PI_SEQUENCE, PI_NOTE,
            "ECN flows markedly slower than this client's other flows", EXPFILL } },
        { &ei_offload_unused, { "tcpdiag.sender.offload_unused", PI_SEQUENCE, PI_NOTE,
            "Offload not used on this flow while other flows from this host use it", EXPFILL } },
    };
    static stat_tap_ui hosts_ui = {
        REGISTER_STAT_GROUP_GENERIC,
        "tcpdiag per-host rules",
        "tcpdiag,hosts",
        init_hosts,
        0,
        NULL
    };

    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));
    prefs_register_uint_preference(module, "ecn_slowdown_pct", "Hosts: ECN slowdown note (%)",
        "Note a client's ECN flows when its other flows' median throughput is at least this many percent of "
        "the ECN flows' median throughput (200 = twice as fast)", 10, &cfg->ecn_slowdown_pct);
    register_stat_tap_ui(&hosts_ui, NULL);
}
