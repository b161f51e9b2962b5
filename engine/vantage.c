/* The capture point's vantage from the two halves of the handshake's round trip. */
#include "vantage.h"

#include <stddef.h>

/* The SYN → SYN-ACK half spans capture point ↔ server, the SYN-ACK → ACK half
 * capture point ↔ client. A capture next to the client sees almost the whole
 * RTT in the first half, one next to the server in the second. Below
 * min_delay_us, host turnaround time hides the position. */
td_vantage td_vantage_infer(const td_handshake *hs, unsigned dominance_pct, unsigned min_delay_us,
                            td_vantage override)
{
    int64_t to_server, to_client, total, min_delay;

    if (override != TD_VANTAGE_UNKNOWN)
        return override;
    if (!hs || !td_handshake_halves(hs, &to_server, &to_client))
        return TD_VANTAGE_UNKNOWN;
    total = to_server + to_client;
    min_delay = (int64_t)min_delay_us * 1000;
    if (total <= 0)
        return TD_VANTAGE_UNKNOWN;
    if (to_server * 100 >= total * (int64_t)dominance_pct && to_server - to_client >= min_delay)
        return TD_VANTAGE_NEAR_CLIENT;
    if (to_client * 100 >= total * (int64_t)dominance_pct && to_client - to_server >= min_delay)
        return TD_VANTAGE_NEAR_SERVER;
    if (to_server >= min_delay && to_client >= min_delay)
        return TD_VANTAGE_MIDDLE;
    return TD_VANTAGE_UNKNOWN;
}

const char *td_vantage_name(td_vantage vantage)
{
    switch (vantage) {
    case TD_VANTAGE_NEAR_CLIENT: return "near-client";
    case TD_VANTAGE_NEAR_SERVER: return "near-server";
    case TD_VANTAGE_MIDDLE:      return "middle";
    case TD_VANTAGE_UNKNOWN:     break;
    }
    return "unknown";
}
