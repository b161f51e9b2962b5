/* A flow read as a series of exchanges (issue 37, item 3): a request and its response,
 * or one exchange for a one-way transfer, each with its bytes and where its time went,
 * read from the time budget's events as the flow goes.
 *
 * An exchange begins with the flow's first new data, whoever sends it, and with each
 * request after it: the client's new data after the server's (a server that speaks
 * first, an FTP greeting, is an exchange of its own). It ends where the next one
 * begins, or when the flow settles. Its parts are the time budget's over that span
 * (time_budget.h), the first's from the handshake's end, so that each part of the
 * flow after its setup is the sum of its exchanges', and they mean what the budget's
 * parts mean:
 *   active    the span less its think and idle time: the client's, the server's and
 *             the network's time in it, what ranks the slowest exchanges (the
 *             first's holds the wait before its first byte: a client that kept the
 *             server waiting before its first request);
 *   client    the request's first byte → its last new byte before the server's first
 *             answering byte (0 for an exchange the client sent nothing in);
 *   server    the server's wait before it answered: the request's last byte → the
 *             response's first byte, less the capture point's round trip to the
 *             server, as the budget's server_wait reads it (its server_delay: a
 *             server pausing inside its own response, a paced stream, is not
 *             waiting to answer, and that time stays in active only);
 *   transfer  data moving, and the network's share of every wait;
 *   stall     data outstanding and nothing moving (timeouts, a zero window);
 *   think     the client's pause after the response, before the next request: 0 for
 *             the flow's last exchange, whose quiet end is idle.
 * A per-flow state of fixed size, O(1) a record, no allocation: an exchange is handed
 * on when it completes, and nothing of it is kept after. */
#ifndef TCPDIAG_EXCHANGE_H
#define TCPDIAG_EXCHANGE_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "time_budget.h"

/* The directions of an exchange's bytes. */
enum { TD_EXCHANGE_C2S, TD_EXCHANGE_S2C };

typedef struct td_exchange {
    uint32_t index;         /* 1 for the flow's first exchange */
    uint32_t first_frame;   /* the request's first packet (a one-way transfer's first) */
    int64_t  start_ns;      /* ...its time */
    uint64_t bytes[2];      /* new payload bytes, by TD_EXCHANGE_C2S, TD_EXCHANGE_S2C */
    int64_t  active_ns;     /* its span less think and idle time: how slow it was */
    int64_t  client_ns, server_ns, transfer_ns, stall_ns, think_ns;
} td_exchange;

/* A flow's exchange in progress. */
typedef struct td_exchanges {
    td_exchange open;
    int64_t  parts_at_start[TD_TIME_PARTS];     /* the budget's when it began */
    int64_t  server_answer_at_start;            /* ...and its server's answer waits */
    uint32_t count;         /* begun so far: the open one's index */
    bool     answered;      /* the server sent new data in the open exchange */
} td_exchanges;

/* After the budget has taken a record of new data (b->new_bytes) from `sender` (client:
 * the client's endpoint, or the budget's guess); true when the record began an
 * exchange that completed the previous one, which is then copied to *done. */
bool td_exchanges_record(td_exchanges *x, const td_time_budget *b, const td_record *rec, int sender,
                         int client, td_exchange *done);
/* The flow has settled (its budget ended): true and its last exchange in *done, if any. */
bool td_exchanges_end(td_exchanges *x, const td_time_budget *b, td_exchange *done);

#endif
