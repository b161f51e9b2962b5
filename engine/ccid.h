/* Which congestion control the sender runs, as far as its answers to congestion
 * signals show it: cubic-like (cuts to about 0.7), reno-like (halves), bbr-like
 * (signals cause no lasting cut), dctcp-like (cuts follow the marked share), or
 * unknown. Passive: from the cuts the capture measured, never from a guess. */
#ifndef TCPDIAG_CCID_H
#define TCPDIAG_CCID_H

#include "flight.h"

typedef enum td_cc_algorithm {
    TD_CC_ALGO_UNKNOWN = 0,
    TD_CC_ALGO_CUBIC,
    TD_CC_ALGO_RENO,
    TD_CC_ALGO_BBR,
    TD_CC_ALGO_DCTCP,
} td_cc_algorithm;

/* *why (static text) says what the verdict rests on, or why it abstains. */
td_cc_algorithm td_cc_identify(const td_flight *f, const char **why);
const char *td_cc_algorithm_name(td_cc_algorithm algorithm);

#endif
