/* tcpdiag.cc on the packets that carry a congestion response (the event, its
 * latency and the cut it made) and as expert info: a Note per response that cut
 * the flight, a Note on a window collapse (the diagnosis carries the Warning), on
 * the packets the engine's collapse thresholds pick; the words are the engine's
 * (engine/analysis_messages.c). */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "analysis_messages.h"

static const td_flight_config *config;

static void add_event(proto_tree *tree, tvbuff_t *tvb, const td_cc_event *e)
{
    tcpdiag_add_string(tree, tvb, TD_F_CC_EVENT, td_cc_event_name((td_cc_event_kind)e->kind));
    if (e->latency_ns >= 0)
        tcpdiag_add_time(tree, tvb, TD_F_CC_LATENCY, e->latency_ns);
    if (!e->measured)
        return;
    tcpdiag_add_uint(tree, tvb, TD_F_CC_FLIGHT_BEFORE, e->before);
    tcpdiag_add_uint(tree, tvb, TD_F_CC_FLIGHT_AFTER, e->after);
    tcpdiag_add_double(tree, tvb, TD_F_CC_RATIO, (double)e->after / e->before);
}

/* The response this packet carries in the sender's direction, if any: it follows
 * that direction's congestion subtree. */
void tcpdiag_cc_event_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame)
{
    const td_cc_event *e = td_cc_event_at(&td_flow_flight(flow, sender)->cc, frame);

    if (e)
        add_event(tree, tvb, e);
}

void tcpdiag_cc_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    GString *message = tcpdiag_message();

    for (int sender = 0; sender < 2; sender++) {
        const td_flight *f = td_flow_flight(flow, sender);
        const td_cc_event *e;
        if (!f || f->unknown_reason)
            continue;
        if (td_cc_collapsed(&f->cc, config) && pinfo->num == f->cc.collapse_start_frame) {
            td_message_window_collapse(f, message);
            tcpdiag_add_message(tree, pinfo, tvb, TD_E_CC_WINDOW_COLLAPSE, message);
        }
        e = td_cc_event_at(&f->cc, pinfo->num);
        /* A Note only where the flight really fell and stayed down: a response that cut
         * nothing (BBR's CWR, a window at its floor) or grew the flight is not news. */
        if (e && td_cc_is_reduction(&f->cc, e)) {
            td_message_cc_reduction(e, message);
            tcpdiag_add_message(tree, pinfo, tvb, TD_E_CC_REDUCTION, message);
        }
    }
}

void tcpdiag_cc_configure(const td_flight_config *cfg)
{
    config = cfg;
}
