/* ECN negotiation (RFC 3168, Accurate ECN RFC 9768) and codepoint use. */
#ifndef TCPDIAG_ECN_H
#define TCPDIAG_ECN_H

#include <stdint.h>
#include "record.h"

typedef enum td_ecn_outcome {
    TD_ECN_PENDING = 0,      /* not decided yet: more packets may decide it */
    TD_ECN_UNKNOWN,
    TD_ECN_NOT_REQUESTED,
    TD_ECN_CLASSIC,
    TD_ECN_DECLINED,
    TD_ECN_REFLECTED,
    TD_ECN_ACCECN,
    TD_ECN_ACCECN_CLASSIC,
    TD_ECN_FALLBACK,
    TD_ECN_INVALID,
} td_ecn_outcome;

/* What a data direction did with ECT, given the negotiation outcome. */
typedef enum td_ecn_data_use {
    TD_ECN_DATA_UNKNOWN = 0,
    TD_ECN_DATA_NONE,            /* no data segments */
    TD_ECN_DATA_ECT,             /* negotiated, ECT/CE used */
    TD_ECN_DATA_NOT_ECT,         /* not negotiated, Not-ECT: as it should be */
    TD_ECN_DATA_UNMARKED,        /* negotiated, yet no segment ECT/CE here */
    TD_ECN_DATA_UNNEGOTIATED,    /* ECT/CE without negotiation */
} td_ecn_data_use;

/* The three ECN bits of a TCP header packed as (AE<<2 | CWR<<1 | ECE). */
unsigned td_ecn_bits(uint16_t tcp_flags);

/* True when a SYN asks for ECN in any form (classic, AccECN or reserved). */
static inline bool td_ecn_syn_requests(uint16_t syn_flags)
{
    return (syn_flags & (TD_TH_AE | TD_TH_CWR | TD_TH_ECE)) != 0;
}

/* True for the two well-formed setup SYNs: classic (0,1,1) and AccECN (1,1,1). */
bool td_ecn_is_setup_request(uint16_t syn_flags);

/* Outcome of a SYN / SYN-ACK pair. For TD_ECN_ACCECN, *feedback receives the
 * SYN codepoint the SYN-ACK reports (RFC 9768 §3.1.1); untouched otherwise. */
td_ecn_outcome td_ecn_classify(uint16_t syn_flags, uint16_t synack_flags, td_ip_ecn *feedback);

static inline bool td_ecn_negotiated(td_ecn_outcome outcome)
{
    return outcome == TD_ECN_CLASSIC || outcome == TD_ECN_ACCECN || outcome == TD_ECN_ACCECN_CLASSIC;
}

td_ecn_data_use td_ecn_data_use_of(td_ecn_outcome outcome, const uint32_t codepoint_count[4]);

const char *td_ecn_outcome_name(td_ecn_outcome outcome);
const char *td_ecn_data_use_name(td_ecn_data_use use);
const char *td_ip_ecn_name(td_ip_ecn codepoint);

#endif
