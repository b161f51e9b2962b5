/* The expert items about how a flow was set up, on the packets that show it: the
 * ECN outcome, ECN codepoints on the handshake and the data, and the TCP options.
 * Their words are the engine's (engine/setup_messages.c); this file only chooses
 * the packet and adds the item. */
#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "setup_messages.h"

static void add_ecn_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow, int sender,
                            const td_handshake *hs, bool complete, GString *message)
{
    uint32_t frame = pinfo->num;
    bool on_synack = frame == hs->synack_frame;

    if (frame == flow->ecn_decided_frame && flow->ecn_outcome != TD_ECN_PENDING) {
        td_expert_id id = td_message_ecn_outcome(flow, message);
        tcpdiag_add_message(tree, pinfo, tvb, id, message);
    }
    if ((frame == hs->last_syn_frame && hs->syn_ip_ecn > 0) || (on_synack && hs->synack_ip_ecn > 0)) {
        td_message_ect_on_syn(on_synack, (td_ip_ecn)(on_synack ? hs->synack_ip_ecn : hs->syn_ip_ecn), message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_ECN_ECT_ON_SYN, message);
    }
    if (!complete || !td_flow_roles_known(flow) || sender < 0)
        return;
    const td_dir_stats *sent = td_flow_sent(flow, sender);
    td_ecn_data_use use = td_flow_ecn_data_use(flow, sender);
    const char *dir = td_flow_dir_name(flow, sender);
    if (use == TD_ECN_DATA_UNMARKED && frame == sent->first_data_frame) {
        td_message_ecn_data_unmarked(dir, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_ECN_DATA_UNMARKED, message);
    }
    if (use == TD_ECN_DATA_UNNEGOTIATED && frame == sent->first_ect_frame) {
        td_message_ecn_data_unnegotiated(dir, (td_ecn_outcome)flow->ecn_outcome, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_ECN_DATA_UNNEGOTIATED, message);
    }
}

static void add_options_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow,
                                int sender, const td_handshake *hs, bool complete, GString *message)
{
    uint32_t frame = pinfo->num;

    if (sender < 0)
        return;
    if ((frame == hs->last_syn_frame || frame == hs->synack_frame) && hs->opts[sender].complete &&
        hs->opts[sender].present == 0) {
        td_message_opts_noopt(frame == hs->synack_frame, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_OPTS_NOOPT, message);
    }
    if (frame == td_flow_sent(flow, sender)->first_frame_without_ts) {
        td_message_opts_ts_vanished(message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_OPTS_TS_VANISHED, message);
    }
    if (!complete || frame != (hs->synack_frame ? hs->synack_frame : hs->last_syn_frame))
        return;
    td_options_audit audit;
    td_options_audit_flow(flow, &audit);
    if (audit.missing) {
        td_expert_id id = td_message_opts_missing(&audit, message);
        tcpdiag_add_message(tree, pinfo, tvb, id, message);
    }
}

void tcpdiag_setup_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow, int sender,
                           bool complete)
{
    /* A lone SYN's handshake is built on demand (engine/flow.c): once a packet. */
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    GString *message = tcpdiag_message();

    add_ecn_experts(tree, pinfo, tvb, flow, sender, hs, complete, message);
    add_options_experts(tree, pinfo, tvb, flow, sender, hs, complete, message);
}
