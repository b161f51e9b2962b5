/* tcpdiag.flight: the round trip's flight on the segment that begins it, the Notes on
 * a sender-held plateau and on a receive window that limits the transfer (their
 * words are engine/analysis_messages.c's), and the sender_warn_mss threshold. */

#include "ws_compat.h"

#include <epan/expert.h>
#include <epan/packet.h>

#include "tcpdiag.h"
#include "tree-tcpdiag.h"
#include "analysis_messages.h"

static unsigned sender_warn_mss = 16;

/* The round trip this packet begins in the sender's direction, if any: it follows that
 * direction's flight subtree (what the I/O Graph presets of the tcpdiag profile plot). */
void tcpdiag_flight_round_items(proto_tree *tree, tvbuff_t *tvb, const td_flow *flow, int sender, uint32_t frame)
{
    uint32_t flight;

    if (td_flight_round_at(td_flow_flight(flow, sender), frame, &flight))
        tcpdiag_add_uint(tree, tvb, TD_F_FLIGHT_ROUND, flight);
}

void tcpdiag_flight_experts(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const td_flow *flow)
{
    GString *message = tcpdiag_message();

    for (int sender = 0; sender < 2; sender++) {
        const td_flight *f = td_flow_flight(flow, sender);
        const td_plateau *p;
        const char *why;
        if (!f)
            continue;
        p = td_flight_plateau(f);
        if (p && p->limit == TD_LIMIT_SENDER && pinfo->num == p->start_frame && f->mss &&
            p->high < sender_warn_mss * f->mss) {
            td_message_sender_limited(f, p, message);
            tcpdiag_add_message(tree, pinfo, tvb, TD_E_FLIGHT_SENDER_LIMITED, message);
        }
        if (pinfo->num == f->first_rwnd_frame && td_flight_limit(f, &why) == TD_LIMIT_RWND) {
            td_message_rwnd_limited(f, message);
            tcpdiag_add_message(tree, pinfo, tvb, TD_E_FLIGHT_RWND_LIMITED, message);
        }
    }
}

unsigned *tcpdiag_flight_warn_mss(void)
{
    return &sender_warn_mss;
}
