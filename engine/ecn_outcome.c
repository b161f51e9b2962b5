/* A flow's ECN outcome from its handshake, settled as soon as the packets prove it. */
#include "ecn_outcome.h"

#include <stddef.h>

static void decided(td_ecn_decision *out, td_ecn_outcome outcome, uint32_t frame, const char *reason)
{
    out->outcome = outcome;
    out->frame = frame;
    out->reason = reason;
}

static void from_handshake(const td_handshake *hs, uint32_t frame, uint8_t *accecn_feedback, td_ecn_decision *out)
{
    td_ip_ecn feedback = (td_ip_ecn)*accecn_feedback;
    td_ecn_outcome outcome = td_ecn_classify(hs->last_syn_flags, hs->synack_flags, &feedback);
    const char *reason = NULL;

    *accecn_feedback = (uint8_t)feedback;
    if (outcome == TD_ECN_REFLECTED)
        reason = "SYN-ACK echoes the SYN's ECN flags: broken peer or middlebox, ECN not used";
    else if (outcome == TD_ECN_INVALID)
        reason = td_ecn_is_setup_request(hs->last_syn_flags) ? "reserved SYN-ACK flag combination"
                                                             : "reserved SYN flag combination";
    decided(out, outcome, frame, reason);
}

/* A SYN-ACK alone does not settle an ECN request: it may be lost after the capture
 * point and the SYN retried, so the request is settled when the client answers it. */
bool td_ecn_decide(const td_handshake *hs, bool beyond_limit, uint32_t frame, uint8_t *accecn_feedback,
                   td_ecn_decision *out)
{
    if (!hs->first_syn_frame)
        decided(out, TD_ECN_UNKNOWN, frame,
                beyond_limit ? "SYN not kept: more flows than the max_flows preference"
                : hs->synack_frame ? "SYN not in the capture"
                                   : "handshake not in the capture (capture starts mid-flow)");
    else if (!td_ecn_syn_requests(hs->first_syn_flags))
        decided(out, TD_ECN_NOT_REQUESTED, hs->first_syn_frame, NULL);
    else if (hs->fallback_frame)
        decided(out, TD_ECN_FALLBACK, hs->fallback_frame,
                "ECN-setup SYN was retried without ECN flags: possible ECN blackhole on the path");
    else if (hs->ack_frame)
        from_handshake(hs, hs->ack_frame, accecn_feedback, out);
    else
        return false;
    return true;
}

void td_ecn_decide_at_end(const td_handshake *hs, uint8_t *accecn_feedback, td_ecn_decision *out)
{
    if (hs->synack_frame)       /* the client's answer was not captured */
        from_handshake(hs, hs->synack_frame, accecn_feedback, out);
    else
        decided(out, TD_ECN_UNKNOWN, hs->first_syn_frame, "no SYN-ACK in the capture");
}
