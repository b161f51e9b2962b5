/* tcpdiag: the Wireshark glue. Reads TCP/IP fields of each dissected frame into a
 * td_record, feeds the core engine on the first pass, and shows the core's
 * findings as generated fields and expert info on every pass. */

#define WS_BUILD_DLL
#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/tap.h>

#include "items.h"
#include "tcpdiag.h"
#include "options.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

WS_DLL_PUBLIC_DEF const char plugin_version[] = VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);
#ifdef TD_HAVE_PLUGIN_DESCRIBE
WS_DLL_PUBLIC uint32_t plugin_describe(void);
#endif

static int proto_tcpdiag = -1;
static int tcpdiag_tap = -1;
static dissector_handle_t tcpdiag_handle;
static td_engine *engine;
static td_diagnoses *diagnoses;
static td_hosts *hosts;
static td_hosts_config hosts_config;
static td_config config;
static int capture_position = TD_VANTAGE_UNKNOWN;

static gint ett_tcpdiag = -1;
static gint ett_flow = -1;
static gint ett_ecn = -1;
static gint ett_opts = -1;

static int hf_dir = -1;
static int hf_flow_roles = -1;
static int hf_flow_client = -1;
static int hf_flow_server = -1;
static int hf_flow_client_port = -1;
static int hf_flow_server_port = -1;
static int hf_flow_client_mss = -1;
static int hf_flow_server_mss = -1;
static int hf_flow_data_sender = -1;
static int hf_flow_syn_to_synack = -1;
static int hf_flow_synack_to_ack = -1;
static int hf_flow_irtt = -1;
static int hf_flow_vantage = -1;
static int hf_flow_duration = -1;
static int hf_flow_packets = -1;
static int hf_flow_icmp_quotes = -1;
static int hf_flow_sizes_from_ip = -1;
static int hf_flow_bytes[2] = { -1, -1 };
static int hf_ecn_outcome = -1;
static int hf_ecn_reason = -1;
static int hf_ecn_syn_ip_ecn = -1;
static int hf_ecn_synack_ip_ecn = -1;
static int hf_ecn_accecn_feedback = -1;
static int hf_ecn_count[2][4] = { { -1, -1, -1, -1 }, { -1, -1, -1, -1 } };
static int hf_ecn_data[2] = { -1, -1 };
static int hf_opts_announced[2] = { -1, -1 };
static int hf_opts_wscale[2] = { -1, -1 };
static int hf_opts_unreadable[2] = { -1, -1 };
static int hf_opts_used[3] = { -1, -1, -1 };
static int hf_opts_missing = -1;
static int hf_opts_left_out[2] = { -1, -1 };
static int hf_opts_window_ceiling = -1;
static int hf_opts_ceiling_throughput = -1;
static int hf_opts_at_ceiling = -1;
static int hf_opts_default_mss = -1;
static int hf_opts_ts_stripped = -1;

static expert_field ei_ecn_negotiated = EI_INIT;
static expert_field ei_ecn_not_negotiated = EI_INIT;
static expert_field ei_ecn_broken_setup = EI_INIT;
static expert_field ei_ecn_syn_fallback = EI_INIT;
static expert_field ei_ecn_undetermined = EI_INIT;
static expert_field ei_ecn_ect_on_syn = EI_INIT;
static expert_field ei_ecn_data_unmarked = EI_INIT;
static expert_field ei_ecn_data_unnegotiated = EI_INIT;
static expert_field ei_opts_noopt = EI_INIT;
static expert_field ei_opts_limiting = EI_INIT;
static expert_field ei_opts_missing_info = EI_INIT;
static expert_field ei_opts_ts_vanished = EI_INIT;

/* Role-named directions: index 0 = client → server, 1 = server → client. */
enum { C2S = 0, S2C = 1 };

/* A frame's place in its flow, as the first pass found it. */
typedef struct td_packet {
    const td_flow *flow;
    uint8_t sender;             /* endpoint index within the flow, or QUOTED */
} td_packet;

/* The frame only quotes a segment of the flow (an ICMP error). */
enum { QUOTED = 2 };

/* Per frame number, one word: the flow's index + 1 (0 = no flow) with the sender in
 * the top two bits. 4 bytes a frame, where per-packet proto data costs about 60. */
static GArray *frame_flows;
enum { SENDER_SHIFT = 30 };
#define FLOW_BITS ((1u << SENDER_SHIFT) - 1)

static void remember_frame(uint32_t frame, const td_flow *flow, int sender)
{
    if (frame == UINT32_MAX || flow->index + 1 > FLOW_BITS)
        return;
    if (frame >= frame_flows->len)
        g_array_set_size(frame_flows, frame + 1);
    g_array_index(frame_flows, uint32_t, frame) = (flow->index + 1) | ((uint32_t)sender << SENDER_SHIFT);
}

static bool recall_frame(uint32_t frame, td_packet *pkt)
{
    uint32_t word = frame < frame_flows->len ? g_array_index(frame_flows, uint32_t, frame) : 0;

    if (!(word & FLOW_BITS))
        return false;
    pkt->flow = td_engine_flow_at(engine, (word & FLOW_BITS) - 1);
    pkt->sender = (uint8_t)(word >> SENDER_SHIFT);
    return pkt->flow != NULL;
}

td_engine *tcpdiag_engine(void)
{
    return engine;
}

const td_hosts *tcpdiag_hosts(void)
{
    if (!engine)
        return NULL;
    if (!td_engine_finished(engine))
        td_engine_finish(engine);
    if (!hosts)
        hosts = td_hosts_build(engine, &hosts_config);
    return hosts;
}

/* After the host rules, which the diagnosis reads (one answer). */
const td_diagnoses *tcpdiag_diagnoses(void)
{
    const td_hosts *rules = tcpdiag_hosts();

    if (!rules)
        return NULL;
    if (!diagnoses)
        diagnoses = td_diagnose(engine, rules);
    return diagnoses;
}

/* Formats the address only when the tree will keep the field. */
static void add_address(proto_tree *tree, int hf, tvbuff_t *tvb, const td_addr *addr)
{
    char text[64];

    if (!proto_field_is_referenced(tree, hf))
        return;
    td_addr_format(addr, text, sizeof text);
    add_string(tree, hf, tvb, text);
}

static void add_flow_items(proto_tree *tree, tvbuff_t *tvb, const td_packet *pkt, bool complete)
{
    const td_flow *flow = pkt->flow;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    proto_tree *flow_tree;
    int64_t to_server, to_client;

    flow_tree = proto_tree_add_subtree(tree, tvb, 0, 0, ett_flow, NULL, "Flow");

    add_string(flow_tree, hf_flow_roles, tvb, td_flow_roles_known(flow) ? "known" : "unknown");
    if (td_flow_roles_known(flow)) {
        int server = td_flow_server(flow);
        if (pkt->sender != QUOTED)
            add_string(tree, hf_dir, tvb, td_flow_dir_name(flow, pkt->sender));
        add_address(flow_tree, hf_flow_client, tvb, &flow->addr[flow->client]);
        add_uint(flow_tree, hf_flow_client_port, tvb, flow->port[flow->client]);
        add_address(flow_tree, hf_flow_server, tvb, &flow->addr[server]);
        add_uint(flow_tree, hf_flow_server_port, tvb, flow->port[server]);
        if (hs->opts[flow->client].present & TD_OPT_MSS)
            add_uint(flow_tree, hf_flow_client_mss, tvb, hs->opts[flow->client].mss);
        if (hs->opts[server].present & TD_OPT_MSS)
            add_uint(flow_tree, hf_flow_server_mss, tvb, hs->opts[server].mss);
    }
    if (td_flow_handshake_halves(flow, &to_server, &to_client)) {
        add_duration(flow_tree, hf_flow_syn_to_synack, tvb, to_server);
        add_duration(flow_tree, hf_flow_synack_to_ack, tvb, to_client);
        add_duration(flow_tree, hf_flow_irtt, tvb, to_server + to_client);
    }
    if (complete || hs->ack_frame)
        add_string(flow_tree, hf_flow_vantage, tvb,
                   td_vantage_name(td_flow_vantage(flow, td_engine_config(engine))));
    if (complete) {
        add_string(flow_tree, hf_flow_data_sender, tvb, td_flow_data_sender(flow));
        add_duration(flow_tree, hf_flow_duration, tvb, flow->last_ns - flow->first_ns);
        add_uint(flow_tree, hf_flow_packets, tvb, flow->packets);
        if (td_flow_icmp_quotes(flow))
            add_uint(flow_tree, hf_flow_icmp_quotes, tvb, td_flow_icmp_quotes(flow));
        if (td_flow_sizes_from_ip(flow))
            add_uint(flow_tree, hf_flow_sizes_from_ip, tvb, td_flow_sizes_from_ip(flow));
        for (int dir = C2S; dir <= S2C && td_flow_roles_known(flow); dir++)
            proto_item_set_generated(proto_tree_add_uint64(flow_tree, hf_flow_bytes[dir], tvb, 0, 0,
                                                           td_flow_sent(flow, td_flow_sender_at(flow, dir))->payload_bytes));
    }
}

static void add_ecn_items(proto_tree *tree, tvbuff_t *tvb, const td_packet *pkt, bool complete)
{
    const td_flow *flow = pkt->flow;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    proto_tree *ecn_tree = proto_tree_add_subtree(tree, tvb, 0, 0, ett_ecn, NULL, "ECN");

    if (flow->ecn_outcome != TD_ECN_PENDING) {
        add_string(ecn_tree, hf_ecn_outcome, tvb, td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome));
        if (flow->ecn_reason)
            add_string(ecn_tree, hf_ecn_reason, tvb, flow->ecn_reason);
        if (flow->ecn_outcome == TD_ECN_ACCECN)
            add_string(ecn_tree, hf_ecn_accecn_feedback, tvb, td_ip_ecn_name((td_ip_ecn)flow->accecn_feedback));
    }
    if (hs->syn_ip_ecn >= 0)
        add_string(ecn_tree, hf_ecn_syn_ip_ecn, tvb, td_ip_ecn_name((td_ip_ecn)hs->syn_ip_ecn));
    if (hs->synack_ip_ecn >= 0)
        add_string(ecn_tree, hf_ecn_synack_ip_ecn, tvb, td_ip_ecn_name((td_ip_ecn)hs->synack_ip_ecn));
    if (!complete || !td_flow_roles_known(flow))
        return;
    for (int dir = C2S; dir <= S2C; dir++) {
        int sender = td_flow_sender_at(flow, dir);
        for (int cp = TD_NOT_ECT; cp <= TD_CE; cp++)
            add_uint(ecn_tree, hf_ecn_count[dir][cp], tvb, td_flow_sent(flow, sender)->ecn_count[cp]);
        add_string(ecn_tree, hf_ecn_data[dir], tvb,
                   td_ecn_data_use_name(td_flow_ecn_data_use(flow, sender)));
    }
}

static void add_options_items(proto_tree *tree, tvbuff_t *tvb, const td_packet *pkt, bool complete)
{
    const td_flow *flow = pkt->flow;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    proto_tree *opts_tree;
    td_options_audit audit;
    char text[64];

    if (!td_flow_roles_known(flow))
        return;
    opts_tree = proto_tree_add_subtree(tree, tvb, 0, 0, ett_opts, NULL, "Handshake options");
    for (int dir = C2S; dir <= S2C; dir++) {
        int sender = td_flow_sender_at(flow, dir);
        const td_syn_options *opts = &hs->opts[sender];
        char unread[64];
        if (!hs->opts_seen[sender])
            continue;
        td_syn_options_describe(opts, text, unread, sizeof text);
        if (text[0])
            add_string(opts_tree, hf_opts_announced[dir], tvb, text);
        if (unread[0])
            add_string(opts_tree, hf_opts_unreadable[dir], tvb, unread);
        if (opts->present & TD_OPT_WSCALE)
            add_uint(opts_tree, hf_opts_wscale[dir], tvb, opts->wscale);
    }
    if (!complete)
        return;
    td_options_audit_flow(flow, &audit);
    if (audit.client_seen) {
        td_options_missing_list(audit.left_out_by_client, text, sizeof text);
        add_string(opts_tree, hf_opts_left_out[C2S], tvb, text);
    }
    if (audit.server_seen) {
        td_options_missing_list(audit.left_out_by_server, text, sizeof text);
        add_string(opts_tree, hf_opts_left_out[S2C], tvb, text);
    }
    for (int i = 0; i < 3; i++)
        add_string(opts_tree, hf_opts_used[i], tvb, td_tristate_name(audit.used[i]));
    if (audit.settled) {
        td_options_missing_list(audit.missing, text, sizeof text);
        add_string(opts_tree, hf_opts_missing, tvb, text);
    }
    if (audit.window_ceiling)
        add_uint(opts_tree, hf_opts_window_ceiling, tvb, audit.window_ceiling);
    if (audit.ceiling_throughput > 0)
        add_rate(opts_tree, hf_opts_ceiling_throughput, tvb, audit.ceiling_throughput);
    if (audit.at_ceiling != TD_UNKNOWN)
        add_string(opts_tree, hf_opts_at_ceiling, tvb, td_tristate_name(audit.at_ceiling));
    for (int role = C2S; role <= S2C; role++)
        if (audit.default_mss[role])
            add_uint(opts_tree, hf_opts_default_mss, tvb, audit.default_mss[role]);
    const char *stripped = td_options_ts_stripped_name(&audit);
    if (stripped)
        add_string(opts_tree, hf_opts_ts_stripped, tvb, stripped);
}

static void add_options_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_packet *pkt,
                                bool complete)
{
    const td_flow *flow = pkt->flow;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    uint32_t frame = pinfo->num;
    int sender = pkt->sender;
    char text[64];

    if (sender == QUOTED)
        return;
    if ((frame == hs->last_syn_frame || frame == hs->synack_frame) && hs->opts[sender].complete &&
        hs->opts[sender].present == 0)
        proto_tree_add_expert_format(tree, pinfo, &ei_opts_noopt, tvb, 0, 0,
            "%s without any TCP option (no MSS, window scale, SACK or timestamps): the TCP_NOOPT "
            "signature, often an application's setsockopt bug", frame == hs->synack_frame ? "SYN-ACK" : "SYN");
    if (frame == td_flow_sent(flow, sender)->first_frame_without_ts)
        proto_tree_add_expert_format(tree, pinfo, &ei_opts_ts_vanished, tvb, 0, 0,
            "Timestamps were negotiated but this segment carries none: stripped on the path?");
    if (!complete || frame != (hs->synack_frame ? hs->synack_frame : hs->last_syn_frame))
        return;
    td_options_audit audit;
    td_options_audit_flow(flow, &audit);
    if (!audit.missing)
        return;
    td_options_missing_list(audit.missing, text, sizeof text);
    if (audit.at_ceiling == TD_YES) {
        char ceiling[32];
        td_format_rate(audit.ceiling_throughput, ceiling, sizeof ceiling);
        proto_tree_add_expert_format(tree, pinfo, &ei_opts_limiting, tvb, 0, 0,
            "Flow without %s: no window scaling caps the window at 65535 bytes, %s at the "
            "handshake RTT, and the transfer ran at that ceiling", text, ceiling);
    } else
        proto_tree_add_expert_format(tree, pinfo, &ei_opts_missing_info, tvb, 0, 0,
            "Flow without %s", text);
}

static void add_outcome_expert(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const char *name = td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome);
    const char *why = flow->ecn_reason ? flow->ecn_reason : "";

    switch (flow->ecn_outcome) {
    case TD_ECN_CLASSIC:
    case TD_ECN_ACCECN:
    case TD_ECN_ACCECN_CLASSIC:
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_negotiated, tvb, 0, 0,
                                     "ECN negotiated: %s", name);
        break;
    case TD_ECN_NOT_REQUESTED:
    case TD_ECN_DECLINED:
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_not_negotiated, tvb, 0, 0,
                                     "ECN not negotiated: %s", name);
        break;
    case TD_ECN_REFLECTED:
    case TD_ECN_INVALID:
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_broken_setup, tvb, 0, 0,
                                     "ECN setup %s: %s", name, why);
        break;
    case TD_ECN_FALLBACK:
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_syn_fallback, tvb, 0, 0, "%s", why);
        break;
    case TD_ECN_UNKNOWN:
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_undetermined, tvb, 0, 0,
                                     "ECN outcome unknown: %s", why);
        break;
    case TD_ECN_PENDING:
        break;
    }
}

static void add_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_packet *pkt,
                        bool complete)
{
    const td_flow *flow = pkt->flow;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    uint32_t frame = pinfo->num;

    if (frame == flow->ecn_decided_frame && flow->ecn_outcome != TD_ECN_PENDING)
        add_outcome_expert(tree, pinfo, tvb, flow);
    if ((frame == hs->last_syn_frame && hs->syn_ip_ecn > 0) ||
        (frame == hs->synack_frame && hs->synack_ip_ecn > 0))
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_ect_on_syn, tvb, 0, 0,
                                     "%s sent with IP ECN codepoint %s",
                                     frame == hs->synack_frame ? "SYN-ACK" : "SYN",
                                     td_ip_ecn_name((td_ip_ecn)(frame == hs->synack_frame
                                                                    ? hs->synack_ip_ecn
                                                                    : hs->syn_ip_ecn)));
    if (!complete || !td_flow_roles_known(flow) || pkt->sender == QUOTED)
        return;
    const td_dir_stats *sent = td_flow_sent(flow, pkt->sender);
    td_ecn_data_use use = td_flow_ecn_data_use(flow, pkt->sender);
    const char *dir = td_flow_dir_name(flow, pkt->sender);
    if (use == TD_ECN_DATA_UNMARKED && frame == sent->first_data_frame)
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_data_unmarked, tvb, 0, 0,
                                     "ECN negotiated but no %s data segment is ECT-marked at this "
                                     "vantage point (bleached on the path, or the sender chose not to)",
                                     dir);
    if (use == TD_ECN_DATA_UNNEGOTIATED && frame == sent->first_ect_frame)
        proto_tree_add_expert_format(tree, pinfo, &ei_ecn_data_unnegotiated, tvb, 0, 0,
                                     "%s data sent ECT/CE although ECN was not negotiated (%s)",
                                     dir, td_ecn_outcome_name((td_ecn_outcome)flow->ecn_outcome));
}

/* A filter or column that names any tcpdiag field marks the protocol referenced;
 * a plain field tells whether the tree is shown. (Asking about the protocol
 * itself is not enough: tshark -T fields keeps every protocol item.) */
static bool items_wanted(proto_tree *tree)
{
    return tree && (proto_registrar_get_nth(proto_tcpdiag)->ref_type != HF_REF_TYPE_NONE ||
                    proto_field_is_referenced(tree, hf_dir));
}

static int dissect_tcpdiag(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    td_packet packet;
    const td_packet *pkt = &packet;
    bool visited = PINFO_FD_VISITED(pinfo);
    /* The GUI dissects rows again while it still reads the file: those see what
     * the first pass knows, and the engine is finished only once it is read. */
    bool complete = visited && tcpdiag_file_read();

    if (!engine)
        return 0;
    if (!visited) {
        td_record rec;
        int sender = QUOTED;
        td_flow *flow = NULL;
        switch (tcpdiag_read_record(pinfo, tvb, &rec)) {
        case TD_FRAME_SEGMENT:
            flow = td_engine_add(engine, &rec, &sender);
            break;
        case TD_FRAME_QUOTED_SEGMENT:
            flow = td_engine_add_quoted(engine, &rec);
            break;
        case TD_FRAME_OTHER:
            break;
        }
        if (!flow)
            return 0;
        packet.flow = flow;
        packet.sender = (uint8_t)sender;
        remember_frame(pinfo->num, flow, sender);
        /* A lone SYN held beyond max_flows joins its flow with the flow's second packet. */
        if (flow->beyond_limit && flow->packets == 2 && flow->first_frame != pinfo->num)
            remember_frame(flow->first_frame, flow, 0);
    } else if (!recall_frame(pinfo->num, &packet)) {
        return 0;
    } else if (complete) {
        tcpdiag_diagnoses();
        /* The Statistics tables (table-tcpdiag.c) get each frame's flow, and only
         * once the verdicts are final: a row never shows a half-known cause. */
        if (pkt->sender != QUOTED)
            tap_queue_packet(tcpdiag_tap, pinfo, pkt->flow);
    }
    /* Items that no filter, column or visible tree asks for would cost time on
     * every packet; expert info is rare and always added. */
    if (items_wanted(tree)) {
        proto_item *ti = proto_tree_add_item(tree, proto_tcpdiag, tvb, 0, 0, ENC_NA);
        proto_item_set_generated(ti);
        tree = proto_item_add_subtree(ti, ett_tcpdiag);
        if (complete)
            tcpdiag_diag_items(tree, tvb, pkt->flow);
        add_flow_items(tree, tvb, pkt, complete);
        add_ecn_items(tree, tvb, pkt, complete);
        add_options_items(tree, tvb, pkt, complete);
        if (complete) {
            tcpdiag_flight_items(tree, tvb, pkt->flow);
            tcpdiag_cc_items(tree, tvb, pkt->flow, pinfo->num);
            tcpdiag_offload_items(tree, tvb, pkt->flow);
            tcpdiag_host_items(tree, tvb, pkt->flow, pinfo->num);
        }
    }
    add_experts(tree, pinfo, tvb, pkt, complete);
    add_options_experts(tree, pinfo, tvb, pkt, complete);
    if (complete) {
        tcpdiag_diag_experts(tree, pinfo, tvb, pkt->flow);
        tcpdiag_flight_experts(tree, pinfo, tvb, pkt->flow);
        tcpdiag_cc_experts(tree, pinfo, tvb, pkt->flow);
        tcpdiag_offload_experts(tree, pinfo, tvb, pkt->flow);
        tcpdiag_host_experts(tree, pinfo, tvb, pkt->flow);
    }
    return tvb_captured_length(tvb);
}

static void tcpdiag_init(void)
{
    tcpdiag_segment_init();
    config.vantage_override = (td_vantage)capture_position;
    engine = td_engine_new(&config);
    frame_flows = g_array_sized_new(FALSE, TRUE, (guint)sizeof(uint32_t), 0);
}

static void tcpdiag_cleanup(void)
{
    td_hosts_free(hosts);
    hosts = NULL;
    td_diagnoses_free(diagnoses);
    diagnoses = NULL;
    td_engine_free(engine);
    engine = NULL;
    g_array_free(frame_flows, TRUE);
    frame_flows = NULL;
}

static module_t *register_prefs(void)
{
    static const enum_val_t positions[] = {
        { "auto", "Infer from handshake timing", TD_VANTAGE_UNKNOWN },
        { "near-client", "Near the client", TD_VANTAGE_NEAR_CLIENT },
        { "middle", "In the middle of the path", TD_VANTAGE_MIDDLE },
        { "near-server", "Near the server", TD_VANTAGE_NEAR_SERVER },
        { NULL, NULL, 0 }
    };
    module_t *module = prefs_register_protocol(proto_tcpdiag, NULL);

    prefs_register_enum_preference(module, "capture_position", "Capture position",
        "Where the capture was taken. \"auto\" infers it per flow from the handshake timing; "
        "any other value overrides the inference for every flow.",
        &capture_position, positions, FALSE);
    prefs_register_uint_preference(module, "vantage_dominance_pct",
        "Vantage: dominant handshake half (%)",
        "A capture is near the client (server) when the SYN→SYN-ACK (SYN-ACK→ACK) half "
        "carries at least this share of the handshake round-trip time.",
        10, &config.vantage_dominance_pct);
    prefs_register_uint_preference(module, "vantage_min_delay_us",
        "Vantage: smallest telling delay (µs)",
        "Handshake halves shorter than this are treated as host turnaround time, "
        "which cannot place the capture point.",
        10, &config.vantage_min_delay_us);
    prefs_register_uint_preference(module, "max_flows", "Flows kept in full",
        "Beyond this many flows, a new flow that is one SYN (a SYN flood, a scan) is kept only if its "
        "next packet follows within the next 65,536 such SYNs; the others are counted in the reports. "
        "Flows that carry data are always kept. 0: no limit.",
        10, &config.max_flows);
    return module;
}

static void register_fields(void)
{
    static hf_register_info hf[] = {
        { &hf_dir, { "Direction", "tcpdiag.dir", FT_STRING, BASE_NONE, NULL, 0x0,
            "Direction of this packet: c2s (client to server) or s2c", HFILL } },
        { &hf_flow_roles, { "Roles", "tcpdiag.flow.roles", FT_STRING, BASE_NONE, NULL, 0x0,
            "known when the SYN or SYN-ACK was captured, unknown otherwise", HFILL } },
        { &hf_flow_client, { "Client", "tcpdiag.flow.client", FT_STRING, BASE_NONE, NULL, 0x0,
            "Address of the endpoint that sent the SYN", HFILL } },
        { &hf_flow_server, { "Server", "tcpdiag.flow.server", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_flow_client_port, { "Client port", "tcpdiag.flow.client_port", FT_UINT16, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_flow_server_port, { "Server port", "tcpdiag.flow.server_port", FT_UINT16, BASE_DEC,
            NULL, 0x0, NULL, HFILL } },
        { &hf_flow_client_mss, { "Client MSS", "tcpdiag.flow.client_mss", FT_UINT16, BASE_DEC,
            NULL, 0x0, "MSS option of the client's SYN", HFILL } },
        { &hf_flow_server_mss, { "Server MSS", "tcpdiag.flow.server_mss", FT_UINT16, BASE_DEC,
            NULL, 0x0, "MSS option of the server's SYN-ACK", HFILL } },
        { &hf_flow_data_sender, { "Data sender", "tcpdiag.flow.data_sender", FT_STRING, BASE_NONE,
            NULL, 0x0, "client, server, both, none, or unknown when roles are unknown", HFILL } },
        { &hf_flow_syn_to_synack, { "SYN to SYN-ACK", "tcpdiag.flow.syn_to_synack",
            FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
            "Round trip from the capture point to the server", HFILL } },
        { &hf_flow_synack_to_ack, { "SYN-ACK to ACK", "tcpdiag.flow.synack_to_ack",
            FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
            "Round trip from the capture point to the client", HFILL } },
        { &hf_flow_irtt, { "Handshake RTT", "tcpdiag.flow.irtt", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, NULL, HFILL } },
        { &hf_flow_vantage, { "Vantage point", "tcpdiag.flow.vantage", FT_STRING, BASE_NONE,
            NULL, 0x0, "near-client, near-server, middle or unknown", HFILL } },
        { &hf_flow_duration, { "Duration", "tcpdiag.flow.duration", FT_RELATIVE_TIME, BASE_NONE,
            NULL, 0x0, "First to last captured packet of the flow", HFILL } },
        { &hf_flow_packets, { "Packets", "tcpdiag.flow.packets", FT_UINT32, BASE_DEC,
            NULL, 0x0, "TCP segments of the flow (ICMP errors quoting one are counted apart)", HFILL } },
        { &hf_flow_icmp_quotes, { "ICMP errors quoting the flow", "tcpdiag.flow.icmp_quotes", FT_UINT32,
            BASE_DEC, NULL, 0x0, "Not part of the TCP exchange: left out of packets and duration", HFILL } },
        { &hf_flow_sizes_from_ip, { "Payload sizes from the IP length", "tcpdiag.flow.sizes_from_ip",
            FT_UINT32, BASE_DEC, NULL, 0x0,
            "Segments whose record was cut below the IP length: payload taken from the IP header", HFILL } },
        { &hf_flow_bytes[C2S], { "Payload bytes client to server", "tcpdiag.flow.c2s.bytes",
            FT_UINT64, BASE_DEC, NULL, 0x0, "Retransmissions included", HFILL } },
        { &hf_flow_bytes[S2C], { "Payload bytes server to client", "tcpdiag.flow.s2c.bytes",
            FT_UINT64, BASE_DEC, NULL, 0x0, "Retransmissions included", HFILL } },
        { &hf_ecn_outcome, { "ECN outcome", "tcpdiag.ecn.outcome", FT_STRING, BASE_NONE, NULL, 0x0,
            "not-requested, classic, declined, reflected, accecn, accecn-classic, fallback, "
            "invalid or unknown", HFILL } },
        { &hf_ecn_reason, { "Reason", "tcpdiag.ecn.reason", FT_STRING, BASE_NONE, NULL, 0x0,
            NULL, HFILL } },
        { &hf_ecn_syn_ip_ecn, { "SYN IP ECN", "tcpdiag.ecn.syn_ip_ecn", FT_STRING, BASE_NONE,
            NULL, 0x0, "IP ECN codepoint of the SYN", HFILL } },
        { &hf_ecn_synack_ip_ecn, { "SYN-ACK IP ECN", "tcpdiag.ecn.synack_ip_ecn", FT_STRING,
            BASE_NONE, NULL, 0x0, "IP ECN codepoint of the SYN-ACK", HFILL } },
        { &hf_ecn_accecn_feedback, { "AccECN SYN feedback", "tcpdiag.ecn.accecn_feedback",
            FT_STRING, BASE_NONE, NULL, 0x0,
            "SYN codepoint the SYN-ACK reports it received (RFC 9768)", HFILL } },
#define ECN_COUNT(dir, cp, label, abbrev) \
        { &hf_ecn_count[dir][cp], { label, abbrev, FT_UINT32, BASE_DEC, NULL, 0x0, \
            "Data segments with this IP ECN codepoint", HFILL } }
        ECN_COUNT(C2S, TD_NOT_ECT, "c2s Not-ECT", "tcpdiag.ecn.c2s.not_ect"),
        ECN_COUNT(C2S, TD_ECT0, "c2s ECT(0)", "tcpdiag.ecn.c2s.ect0"),
        ECN_COUNT(C2S, TD_ECT1, "c2s ECT(1)", "tcpdiag.ecn.c2s.ect1"),
        ECN_COUNT(C2S, TD_CE, "c2s CE", "tcpdiag.ecn.c2s.ce"),
        ECN_COUNT(S2C, TD_NOT_ECT, "s2c Not-ECT", "tcpdiag.ecn.s2c.not_ect"),
        ECN_COUNT(S2C, TD_ECT0, "s2c ECT(0)", "tcpdiag.ecn.s2c.ect0"),
        ECN_COUNT(S2C, TD_ECT1, "s2c ECT(1)", "tcpdiag.ecn.s2c.ect1"),
        ECN_COUNT(S2C, TD_CE, "s2c CE", "tcpdiag.ecn.s2c.ce"),
#undef ECN_COUNT
        { &hf_ecn_data[C2S], { "c2s ECT use", "tcpdiag.ecn.c2s.data", FT_STRING, BASE_NONE,
            NULL, 0x0, "no-data, ect, not-ect, unmarked, unnegotiated-ect or unknown", HFILL } },
        { &hf_ecn_data[S2C], { "s2c ECT use", "tcpdiag.ecn.s2c.data", FT_STRING, BASE_NONE,
            NULL, 0x0, "no-data, ect, not-ect, unmarked, unnegotiated-ect or unknown", HFILL } },
#define OPT_STRING(hf, label, abbrev, blurb) \
        { &hf, { label, abbrev, FT_STRING, BASE_NONE, NULL, 0x0, blurb, HFILL } }
        OPT_STRING(hf_opts_announced[C2S], "Client options", "tcpdiag.opts.client",
            "Options in the client's SYN, or none"),
        OPT_STRING(hf_opts_announced[S2C], "Server options", "tcpdiag.opts.server",
            "Options in the server's SYN-ACK, or none"),
        OPT_STRING(hf_opts_unreadable[C2S], "Client options unreadable", "tcpdiag.opts.client_unreadable",
            "Options the SYN's cut or malformed bytes may hold"),
        OPT_STRING(hf_opts_unreadable[S2C], "Server options unreadable", "tcpdiag.opts.server_unreadable",
            "Options the SYN-ACK's cut or malformed bytes may hold"),
        { &hf_opts_wscale[C2S], { "Client window scale", "tcpdiag.opts.client_wscale", FT_UINT8,
            BASE_DEC, NULL, 0x0, "Shift announced in the SYN", HFILL } },
        { &hf_opts_wscale[S2C], { "Server window scale", "tcpdiag.opts.server_wscale", FT_UINT8,
            BASE_DEC, NULL, 0x0, "Shift announced in the SYN-ACK", HFILL } },
        OPT_STRING(hf_opts_used[TD_USED_WSCALE], "Window scaling used", "tcpdiag.opts.wscale_used",
            "yes when both sides announced it, no, or unknown"),
        OPT_STRING(hf_opts_used[TD_USED_SACK], "SACK used", "tcpdiag.opts.sack_used",
            "yes when both sides announced it, no, or unknown"),
        OPT_STRING(hf_opts_used[TD_USED_TS], "Timestamps used", "tcpdiag.opts.ts_used",
            "yes when both sides announced them, no, or unknown"),
        OPT_STRING(hf_opts_missing, "Missing", "tcpdiag.opts.missing",
            "What the flow ended up without, of wscale, sack, ts; or none"),
        OPT_STRING(hf_opts_left_out[C2S], "Left out by client", "tcpdiag.opts.left_out_by_client",
            "Which of mss, wscale, sack, ts the client did not announce"),
        OPT_STRING(hf_opts_left_out[S2C], "Left out by server", "tcpdiag.opts.left_out_by_server",
            "Which of mss, wscale, sack, ts the server did not announce"),
        OPT_STRING(hf_opts_at_ceiling, "Ran at the window ceiling", "tcpdiag.opts.at_ceiling",
            "yes when the busiest direction reached 80% of the unscaled-window ceiling"),
        OPT_STRING(hf_opts_ts_stripped, "Timestamps stripped", "tcpdiag.opts.ts_stripped",
            "c2s, s2c or both: negotiated timestamps missing from later segments"),
#undef OPT_STRING
        { &hf_opts_window_ceiling, { "Window ceiling", "tcpdiag.opts.window_ceiling", FT_UINT32,
            BASE_DEC, NULL, 0x0, "Largest window a receiver can offer without window scaling", HFILL } },
        { &hf_opts_ceiling_throughput, { "Ceiling throughput (B/s)", "tcpdiag.opts.ceiling_throughput",
            FT_DOUBLE, BASE_NONE, NULL, 0x0, "Window ceiling / handshake RTT", HFILL } },
        { &hf_opts_default_mss, { "Default MSS assumed", "tcpdiag.opts.default_mss", FT_UINT16,
            BASE_DEC, NULL, 0x0, "MSS a peer must assume for a side that sent none: 536 (IPv4), 1220 (IPv6)",
            HFILL } },
    };
    static gint *ett[] = { &ett_tcpdiag, &ett_flow, &ett_ecn, &ett_opts };
    static ei_register_info ei[] = {
        { &ei_ecn_negotiated, { "tcpdiag.ecn.negotiated", PI_PROTOCOL, PI_NOTE,
            "ECN negotiated", EXPFILL } },
        { &ei_ecn_not_negotiated, { "tcpdiag.ecn.not_negotiated", PI_PROTOCOL, PI_CHAT,
            "ECN not negotiated", EXPFILL } },
        { &ei_ecn_broken_setup, { "tcpdiag.ecn.broken_setup", PI_PROTOCOL, PI_WARN,
            "Broken ECN setup", EXPFILL } },
        { &ei_ecn_syn_fallback, { "tcpdiag.ecn.syn_fallback", PI_SEQUENCE, PI_WARN,
            "ECN-setup SYN retried without ECN", EXPFILL } },
        { &ei_ecn_undetermined, { "tcpdiag.ecn.undetermined", PI_PROTOCOL, PI_CHAT,
            "ECN outcome unknown", EXPFILL } },
        { &ei_ecn_ect_on_syn, { "tcpdiag.ecn.ect_on_syn", PI_PROTOCOL, PI_NOTE,
            "ECT or CE on a SYN or SYN-ACK", EXPFILL } },
        { &ei_ecn_data_unmarked, { "tcpdiag.ecn.data_unmarked", PI_PROTOCOL, PI_WARN,
            "ECN negotiated but data not ECT-marked", EXPFILL } },
        { &ei_ecn_data_unnegotiated, { "tcpdiag.ecn.data_unnegotiated", PI_PROTOCOL, PI_WARN,
            "ECT used without ECN negotiation", EXPFILL } },
        { &ei_opts_noopt, { "tcpdiag.opts.noopt", PI_PROTOCOL, PI_WARN,
            "SYN without any TCP option (TCP_NOOPT signature)", EXPFILL } },
        { &ei_opts_limiting, { "tcpdiag.opts.limiting", PI_PROTOCOL, PI_NOTE,
            "A missing option limits this transfer", EXPFILL } },
        { &ei_opts_missing_info, { "tcpdiag.opts.missing_info", PI_PROTOCOL, PI_NOTE,
            "Handshake options missing", EXPFILL } },
        { &ei_opts_ts_vanished, { "tcpdiag.opts.ts_vanished", PI_PROTOCOL, PI_WARN,
            "Negotiated timestamps missing from a segment", EXPFILL } },
    };

    proto_register_field_array(proto_tcpdiag, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto_tcpdiag), ei, array_length(ei));
}

static void proto_register_tcpdiag(void)
{
    td_config_defaults(&config);
    proto_tcpdiag = proto_register_protocol("TCP throughput diagnosis", "tcpdiag", "tcpdiag");
    register_fields();
    module_t *module = register_prefs();
    tcpdiag_flight_register(proto_tcpdiag, module, &config.flight);
    tcpdiag_cc_register(proto_tcpdiag, module, &config.flight);
    tcpdiag_offload_register(proto_tcpdiag);
    tcpdiag_diag_register(proto_tcpdiag, module, &config.stall);
    td_hosts_config_defaults(&hosts_config);
    tcpdiag_host_register(proto_tcpdiag, module, &hosts_config);
    tcpdiag_handle = create_dissector_handle(dissect_tcpdiag, proto_tcpdiag);
    register_postdissector(tcpdiag_handle);
    register_init_routine(tcpdiag_init);
    register_cleanup_routine(tcpdiag_cleanup);
    tcpdiag_tap = register_tap("tcpdiag");
    tcpdiag_register_stats();
    tcpdiag_register_tables();
    tcpdiag_gui_register();
}

void plugin_register(void)
{
    static proto_plugin plugin;

    plugin.register_protoinfo = proto_register_tcpdiag;
    plugin.register_handoff = NULL;
    proto_register_plugin(&plugin);
}

#ifdef TD_HAVE_PLUGIN_DESCRIBE
uint32_t plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR | WS_PLUGIN_DESC_TAP_LISTENER;
}
#endif
