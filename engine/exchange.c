/* A flow's exchanges (exchange.h): where one begins and ends, and its parts taken from
 * the time budget between the two. */
#include "exchange.h"

#include <string.h>

/* The open exchange's parts: the budget's since it began. */
static void close_open(td_exchanges *x, const td_time_budget *b, td_exchange *done)
{
    const int64_t *at = x->parts_at_start;

    *done = x->open;
    done->active_ns = 0;
    for (int p = 0; p < TD_TIME_PARTS; p++)
        if (p != TD_TIME_THINK && p != TD_TIME_IDLE)
            done->active_ns += b->part_ns[p] - at[p];
    done->server_ns = b->answer_wait_ns[TD_SPAN_SERVER_WAIT] - x->server_answer_at_start;
    done->transfer_ns = b->part_ns[TD_TIME_TRANSFER] - at[TD_TIME_TRANSFER];
    done->stall_ns = b->part_ns[TD_TIME_STALL] - at[TD_TIME_STALL];
    done->think_ns = b->part_ns[TD_TIME_THINK] - at[TD_TIME_THINK];
}

bool td_exchanges_record(td_exchanges *x, const td_time_budget *b, const td_record *rec, int sender,
                         int client, td_exchange *done)
{
    bool completed = false;

    if (b->begins_exchange) {
        /* the think time before this request was charged by this record: the open
           exchange's, as is the network's share of that wait */
        if (x->count) {
            close_open(x, b, done);
            completed = true;
        }
        memset(&x->open, 0, sizeof x->open);
        x->open.index = ++x->count;
        x->open.first_frame = rec->frame;
        x->open.start_ns = rec->time_ns;
        if (x->count == 1) {
            /* the first holds all after the handshake, the wait before its first byte
               included (a server's greeting, a client's first request), so that the
               exchanges' parts add up to the flow's */
            memset(x->parts_at_start, 0, sizeof x->parts_at_start);
            x->parts_at_start[TD_TIME_SETUP] = b->part_ns[TD_TIME_SETUP];
            x->server_answer_at_start = 0;
        } else {
            memcpy(x->parts_at_start, b->part_ns, sizeof x->parts_at_start);
            x->server_answer_at_start = b->answer_wait_ns[TD_SPAN_SERVER_WAIT];
        }
        x->answered = false;
    }
    if (sender == client) {
        x->open.bytes[TD_EXCHANGE_C2S] += b->new_bytes;
        if (!x->answered)
            x->open.client_ns = rec->time_ns - x->open.start_ns;
    } else {
        x->open.bytes[TD_EXCHANGE_S2C] += b->new_bytes;
        x->answered = true;
    }
    return completed;
}

bool td_exchanges_end(td_exchanges *x, const td_time_budget *b, td_exchange *done)
{
    if (!x->count)
        return false;
    close_open(x, b, done);
    return true;
}
