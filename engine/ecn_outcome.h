/* A flow's ECN outcome from its handshake, settled as soon as the packets seen
 * prove it (RFC 3168 §6.1.1, RFC 9768 §3.1): the negotiation table of ecn.c
 * applied to the SYNs and SYN-ACK that handshake.c kept. The one place the outcome
 * is decided: flow.c's ecn analysis asks it after each record while the outcome
 * is pending, and once more when the capture ends. */
#ifndef TCPDIAG_ECN_OUTCOME_H
#define TCPDIAG_ECN_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>
#include "ecn.h"
#include "handshake.h"

typedef struct td_ecn_decision {
    td_ecn_outcome outcome;
    uint32_t frame;             /* the packet that settled it */
    const char *reason;         /* static text, NULL when none */
} td_ecn_decision;

/* While the outcome is pending: what the handshake seen up to `frame` proves, or
 * false when it proves nothing yet. beyond_limit: the flow began beyond max_flows,
 * so its SYN may not have been kept. *accecn_feedback: the AccECN SYN-ACK's
 * codepoint feedback, updated when the handshake settles it. */
bool td_ecn_decide(const td_handshake *hs, bool beyond_limit, uint32_t frame, uint8_t *accecn_feedback,
                   td_ecn_decision *out);
/* The capture has ended with the outcome still pending. */
void td_ecn_decide_at_end(const td_handshake *hs, uint8_t *accecn_feedback, td_ecn_decision *out);

#endif
