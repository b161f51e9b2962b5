/* tcpdiag.offload: the Note where a cap on super-packets begins. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "analysis_messages.h"

void tcpdiag_offload_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    for (int sender = 0; sender < 2; sender++) {
        const td_flight *f = td_flow_flight(flow, sender);
        const td_offload_result *r = f ? &f->seg.result : NULL;
        if (r && r->verdict == TD_OFFLOAD_CAPPED && pinfo->num == r->cap_start_frame) {
            GString *message = tcpdiag_message();
            td_message_offload_capped(f, message);
            tcpdiag_add_message(tree, pinfo, tvb, TD_E_OFFLOAD_CAPPED, message);
        }
    }
}
