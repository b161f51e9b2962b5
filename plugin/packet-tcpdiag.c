/* tcpdiag: the Wireshark glue. Reads TCP/IP fields of each dissected frame into a
 * td_record, feeds the core engine on the first pass, and shows the core's
 * findings as generated fields and expert info on every pass. */

#define WS_BUILD_DLL
#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/tap.h>

#include "tcpdiag.h"
#include "exchange-tcpdiag.h"
#include "tree-tcpdiag.h"
#include "gui-tcpdiag.h"
#include "printed-tcpdiag.h"
#include "segment-tcpdiag.h"
#include "state-tcpdiag.h"

/* About > Plugins shows it: tcpdiag's version and the Wireshark series it was built
 * for, as `tcpdiag --version` and the Debian package's version give them (0.1.0+ws4.0).
 * CMakeLists.txt defines it from its project VERSION, the one place it is written. */
#ifndef VERSION
#error "VERSION comes from CMakeLists.txt (project VERSION)"
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
static td_hosts_config hosts_config;
static td_config config;

static gint ett_tcpdiag = -1;
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

static bool recall_frame(const td_engine *engine, uint32_t frame, td_packet *pkt)
{
    uint32_t word = frame < frame_flows->len ? g_array_index(frame_flows, uint32_t, frame) : 0;

    if (!(word & FLOW_BITS))
        return false;
    pkt->flow = td_engine_flow_at(engine, (word & FLOW_BITS) - 1);
    pkt->sender = (uint8_t)(word >> SENDER_SHIFT);
    return pkt->flow != NULL;
}

/* The items about this packet, each after the subtree it belongs with. */
typedef struct packet_items {
    tvbuff_t *tvb;
    const td_packet *pkt;
    uint32_t frame;
} packet_items;

static void add_packet_items(void *ctx, proto_tree *top, td_field_group group, int sender)
{
    const packet_items *at = ctx;
    const td_flow *flow = at->pkt->flow;

    if (group == TD_GROUP_FLOW && td_flow_roles_known(flow) && at->pkt->sender != QUOTED)
        tcpdiag_add_string(top, at->tvb, TD_F_DIR, td_flow_dir_name(flow, at->pkt->sender));
    else if (group == TD_GROUP_DIAG)
        tcpdiag_diag_items(top, at->tvb, flow, at->frame);
    else if (group == TD_GROUP_FLIGHT)
        tcpdiag_flight_round_items(top, at->tvb, flow, sender, at->frame);
    else if (group == TD_GROUP_CC)
        tcpdiag_cc_event_items(top, at->tvb, flow, sender, at->frame);
}

/* A filter or column that names any tcpdiag field marks the protocol referenced;
 * otherwise items are wanted in a tree that is shown, unless tshark prints only
 * -e fields that are none of them (printed-tcpdiag.c). (Asking about the protocol
 * itself is not enough: tshark -T fields keeps every protocol item.) */
static bool items_wanted(proto_tree *tree)
{
    return tree && (proto_registrar_get_nth(proto_tcpdiag)->ref_type != HF_REF_TYPE_NONE ||
                    (proto_field_is_referenced(tree, tcpdiag_hf(TD_F_DIR)) && !tcpdiag_items_unprinted()));
}

static int dissect_tcpdiag(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    td_packet packet;
    const td_packet *pkt = &packet;
    bool visited = PINFO_FD_VISITED(pinfo);
    /* The GUI dissects rows again while it still reads the file: those see what
     * the first pass knows, and the engine is finished only once it is read. */
    bool complete = visited && tcpdiag_state_complete();
    td_engine *engine = tcpdiag_state_engine();

    if (!engine)
        return 0;
    if (!visited) {
        td_record rec;
        int sender = QUOTED;
        td_flow *flow = NULL;
        switch (tcpdiag_read_record(pinfo, tvb, &rec)) {
        case TD_FRAME_SEGMENT:
            flow = td_engine_add(engine, &rec, &sender);
            tcpdiag_state_clock(rec.time_ns);
            break;
        case TD_FRAME_QUOTED:
            flow = td_engine_add_quoted(engine, &rec);
            break;
        case TD_FRAME_OTHER:
        case TD_FRAME_MALFORMED:
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
    } else if (!recall_frame(engine, pinfo->num, &packet)) {
        return 0;
    } else if (complete) {
        tcpdiag_state_diagnoses();
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
        td_flow_view view = { engine, complete ? tcpdiag_state_diagnoses() : NULL,
                              complete ? tcpdiag_state_hosts() : NULL,
                              complete, pinfo->num };
        packet_items at = { tvb, pkt, pinfo->num };
        tcpdiag_flow_tree(tree, tvb, &view, pkt->flow, add_packet_items, &at);
        if (complete)
            tcpdiag_exchange_items(tree, tvb, pinfo->num);
    }
    tcpdiag_setup_experts(tree, pinfo, tvb, pkt->flow, pkt->sender == QUOTED ? -1 : pkt->sender, complete);
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
    tcpdiag_state_open(&config, &hosts_config);
    tcpdiag_exchanges_open(tcpdiag_state_engine());
    frame_flows = g_array_sized_new(FALSE, TRUE, (guint)sizeof(uint32_t), 0);
}

static void tcpdiag_cleanup(void)
{
    tcpdiag_fields_forget();
    tcpdiag_segment_forget();
    tcpdiag_exchanges_close();
    tcpdiag_state_close();
    g_array_free(frame_flows, TRUE);
    frame_flows = NULL;
}

static void register_fields(void)
{
    static gint *ett[] = { &ett_tcpdiag };

    tcpdiag_fields_register(proto_tcpdiag);
    proto_register_subtree_array(ett, array_length(ett));
}

static void proto_register_tcpdiag(void)
{
    td_config_defaults(&config);
    config.flight.round_log = true;     /* tcpdiag.flight.round, on the packet that begins each round */
    tcpdiag_printed_init();
    proto_tcpdiag = proto_register_protocol("TCP throughput diagnosis", "tcpdiag", "tcpdiag");
    register_fields();
    td_hosts_config_defaults(&hosts_config);
    td_pref_homes homes = { &config, &hosts_config, tcpdiag_flight_warn_mss() };
    tcpdiag_prefs_register(proto_tcpdiag, &homes);
    tcpdiag_cc_configure(&config.flight);
    tcpdiag_diag_register();
    tcpdiag_handle = create_dissector_handle(dissect_tcpdiag, proto_tcpdiag);
    register_postdissector(tcpdiag_handle);
    register_init_routine(tcpdiag_init);
    register_cleanup_routine(tcpdiag_cleanup);
    tcpdiag_tap = register_tap("tcpdiag");
    tcpdiag_register_stats();
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
