/* tcpdiag.host and tcpdiag.sender: the Notes of the per-host rules of engine/hosts.c
 * on the first packet of each flow they concern (their preference is in the engine's
 * table, engine/preferences.c; their `-z tcpdiag,hosts` text is registered in
 * stats-tcpdiag.c). Nothing here runs per packet: one lookup at a flow's first packet. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "state-tcpdiag.h"
#include "analysis_messages.h"

static bool at_flow_start(const td_flow *flow, uint32_t frame)
{
    return frame == flow->first_frame && td_flow_roles_known(flow);
}

void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_hosts *hosts = tcpdiag_state_hosts();
    const td_client_summary *client;
    GString *message;

    if (!hosts || !at_flow_start(flow, pinfo->num))
        return;
    message = tcpdiag_message();
    if ((client = td_hosts_ecn_slower_of(hosts, flow)) != NULL) {
        td_message_ecn_slower(client, message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_HOST_ECN_SLOWER, message);
    }
    if (td_hosts_offload_unused(hosts, flow)) {
        td_message_offload_unused(td_hosts_sender_of(hosts, flow), message);
        tcpdiag_add_message(tree, pinfo, tvb, TD_E_SENDER_OFFLOAD_UNUSED, message);
    }
}
