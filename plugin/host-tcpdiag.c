/* tcpdiag.host and tcpdiag.sender: the Notes of the per-host rules of engine/hosts.c
 * on the first packet of each flow they concern, and the rules' preference (their
 * `-z tcpdiag,hosts` text is registered in stats-tcpdiag.c). Nothing here runs per
 * packet: one lookup at a flow's first packet. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "state-tcpdiag.h"
#include "advice.h"

static bool at_flow_start(const td_flow *flow, uint32_t frame)
{
    return frame == flow->first_frame && td_flow_roles_known(flow);
}

void tcpdiag_host_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    const td_hosts *hosts = tcpdiag_state_hosts();
    const td_client_summary *client;
    char host[64], common[64], slow[32], fast[32];

    if (!hosts || !at_flow_start(flow, pinfo->num))
        return;
    if ((client = td_hosts_ecn_slower_of(hosts, flow)) != NULL) {
        td_addr_format(&client->addr, host, sizeof host);
        td_format_rate(client->ecn_median_rate, slow, sizeof slow);
        td_format_rate(client->other_median_rate, fast, sizeof fast);
        proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_HOST_ECN_SLOWER), tvb, 0, 0,
                                     "ECN flows of %s are %.1fx slower than its other flows (median %s vs %s)", host,
                                     client->ecn_slowdown, slow, fast);
    }
    if (td_hosts_offload_unused(hosts, flow)) {
        const td_sender_summary *s = td_hosts_sender_of(hosts, flow);
        td_common_traits(s->common, common, sizeof common);
        td_format_rate(s->capped_median_rate, slow, sizeof slow);
        td_format_rate(s->offloaded_median_rate, fast, sizeof fast);
        proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_SENDER_OFFLOAD_UNUSED), tvb, 0, 0,
                                     "Offload not used on this flow while %u other flows from this host use it "
                                     "(in common: %s; median %s vs %s)",
                                     s->offloaded_flows, common, slow, fast);
    }
}

void tcpdiag_host_register(module_t *module, td_hosts_config *cfg)
{
    prefs_register_uint_preference(module, "ecn_slowdown_pct", "Hosts: ECN slowdown note (%)",
        "Note a client's ECN flows when its other flows' median throughput is at least this many percent of "
        "the ECN flows' median throughput (200 = twice as fast)", 10, &cfg->ecn_slowdown_pct);
}
