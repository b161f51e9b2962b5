/* tcpdiag.offload: the Note where a cap on super-packets begins. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"

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
            proto_tree_add_expert_format(tree, pinfo, tcpdiag_expert(TD_E_OFFLOAD_CAPPED), tvb, 0, 0,
                "From here on no super-packet exceeds %u bytes (%.1f x MSS)%s", r->cap,
                f->mss ? (double)r->cap / f->mss : 0.0, cause_text(r->cap_cause));
    }
}
