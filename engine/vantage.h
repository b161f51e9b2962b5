/* Where the capture point sits on the path between client and server (the
 * vantage), inferred from how the handshake's round trip splits in two halves at
 * the capture point, unless the analyst says where the capture was taken. */
#ifndef TCPDIAG_VANTAGE_H
#define TCPDIAG_VANTAGE_H

#include "handshake.h"

typedef enum td_vantage {
    TD_VANTAGE_UNKNOWN = 0,
    TD_VANTAGE_NEAR_CLIENT,
    TD_VANTAGE_NEAR_SERVER,
    TD_VANTAGE_MIDDLE,
} td_vantage;

/* The vantage a handshake implies (hs NULL: none seen), with the thresholds of
 * td_config: one half must carry dominance_pct of the round trip and exceed the
 * other by min_delay_us to count as near one end; both must exceed min_delay_us
 * for the middle. An override other than TD_VANTAGE_UNKNOWN wins. */
td_vantage td_vantage_infer(const td_handshake *hs, unsigned dominance_pct, unsigned min_delay_us,
                            td_vantage override);

const char *td_vantage_name(td_vantage vantage);

#endif
