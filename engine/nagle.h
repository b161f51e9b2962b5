/* Nagle's algorithm meeting the peer's delayed ACK: a sender holds a small segment
 * back while earlier data is unacknowledged (Nagle, RFC 896), and the peer, which has
 * nothing to send until the rest of the request arrives, holds its ACK for its
 * delayed-ACK interval (about 40 ms on Linux, up to 200 ms elsewhere). Each exchange
 * then waits that interval. A per-flow state fed the flow's records in order, O(1)
 * per record, no allocation.
 *
 * A hold, as any capture point sees it: the sender's new data (first part), a pure ACK
 * from the peer covering all of it that came late, and the sender's next new data, a
 * segment shorter than its MSS, right after that ACK reached it. Late and right after
 * are measured against the handshake's halves at the capture point: the ACK's delay
 * is its time after the first part less the capture point's round trip to the peer
 * (at the peer, the delay itself; at the sender, one round trip more), and the release
 * comes within the capture point's round trip to the sender (plus a little jitter).
 * The hold itself, first part → released segment, is the same at every capture point:
 * both segments are the sender's. Without the handshake's halves nothing is counted
 * (a path's round trip cannot be told from a delayed ACK). */
#ifndef TCPDIAG_NAGLE_H
#define TCPDIAG_NAGLE_H

#include <stdbool.h>
#include <stdint.h>
#include "handshake.h"
#include "record.h"

struct td_series_book;

typedef struct td_nagle_config {
    unsigned min_ack_delay_ms;  /* an ACK this much later than the round trip was delayed */
} td_nagle_config;

void td_nagle_config_defaults(td_nagle_config *cfg);

/* One endpoint as the sender of held segments. */
typedef struct td_nagle_side {
    uint32_t hi;                /* end of its highest new data */
    int64_t  sent_ns;           /* its latest new data */
    int64_t  late_ack_ns;       /* the peer's late pure ACK of all of it since, 0 none */
    uint32_t late_ack_frame;
    bool     known, outstanding;
    uint32_t holds;             /* small segments released right after a late ACK */
    int64_t  held_ns;           /* their time behind the data before them */
    uint32_t first_frame;       /* the late ACK that released the first of them */
} td_nagle_side;

typedef struct td_nagle {
    td_nagle_side side[2];      /* by sending endpoint */
} td_nagle;

/* One record of the flow from endpoint `sender`; client: the client's endpoint, -1
 * unknown; hs: the flow's handshake so far; mss: a segment shorter than this is short
 * of a full one (0 unknown); history: the report's (series.h), which keeps each hold,
 * NULL none. */
void td_nagle_record(td_nagle *n, const td_record *rec, int sender, int client, const td_handshake *hs,
                     uint32_t mss, const td_nagle_config *cfg, struct td_series_book *history);
/* The endpoint whose segments were held longest in all, -1 none. */
int td_nagle_held_sender(const td_nagle *n);

#endif
