/* A flow's time budget: its duration, first to last captured packet, split into
 * parts that add up to it exactly (in ns), each with an owner: the handshake, the
 * client's and the server's applications, the network moving data, data stuck
 * (timeouts, zero window, a dead peer) and idle time. A per-flow state machine fed
 * the flow's records in order, O(1) per record, no allocation.
 *
 * The parts (td_time_part):
 *   setup        first SYN → the client's first ACK of a SYN-ACK (or the first data
 *                segment, or a RST): SYN and SYN-ACK retransmission waits included;
 *                0 for a flow captured without its SYN.
 *   client_wait  the client held the turn while the server waited on it, and then
 *                sent new data: from the packet that handed it the turn (the
 *                handshake's end before its first request, or the server's ACK that
 *                covered all the client had sent, inside a request or an upload) to
 *                the client's next new data, less the round trip from the capture
 *                point to the client when the handing packet was the server's.
 *   server_wait  the same for the server: typically the request's last byte → the
 *                reply's first byte (acknowledged or not), less the capture point's
 *                round trip to the server: the server application's time, a late
 *                accept included.
 *   transfer     data moving: spans that end with new data while the sender still
 *                had data outstanding, and the network's share of every wait (the
 *                round trip subtracted above).
 *   stall        data outstanding and nothing moving: a span ended by a
 *                retransmission (a timeout's silence, a SYN-ACK resent after the
 *                handshake; data the receiver had already acknowledged, sent
 *                again: its sender never had those ACKs, the path lost them, and
 *                it waited out its timer; data below a sequence number the sender's pure ACK
 *                or FIN already carried: sent, lost before the capture point, resent), time
 *                while a receiver advertised a zero window to a
 *                sender that has sent data, and the span after unanswered
 *                retransmissions when the flow ends or closes that way (dead peer).
 *   think        the pause between two exchanges: the server's answer in, nothing
 *                owed, and the client's application (or its user) taking its time
 *                before the next request, less the round trip to the client. A person
 *                reading a page, a browser keeping a connection warm, a user at an
 *                FTP prompt: never time lost, never a cause, never active time.
 *   idle         nothing outstanding and no exchange following: the span before a
 *                FIN or RST (less the round trip to its sender when the turn came
 *                from its peer), the quiet end of the capture, and the close: a FIN
 *                resent unanswered after all the data was acknowledged, its peer's
 *                last segment short of a full one (it had sent all it had: RFC 1122
 *                4.2.3.4, a sender sends a short segment only when nothing else is
 *                queued), costs the application nothing: the peer left after the data.
 *                A peer whose data stopped on a full segment may have been cut off
 *                mid-transfer: its silence stays a stall, and a dead peer.
 *
 * The timeline is cut at events (new data, retransmissions, SYN, FIN, RST); the span
 * since the last event is charged when the next one shows whose it was, except zero
 * window time, charged as it passes.
 *
 * What a capture point separates. The round trips subtracted are the handshake's
 * halves at the capture point (capture point ↔ server, capture point ↔ client), so
 * the waits are the applications' own at every vantage: near the server the
 * server_wait is the gap it sees, near the client the gap less the path's round
 * trip. A queue that grows during the flow stretches each round trip beyond the
 * handshake's: a packet that took longer from its sender to the capture point than
 * the sender's handshake packet did, by its timestamp (its TSval's ticks since that
 * packet's against the arrival times between them), adds that much to the network's
 * share of the wait it ends. Only that leg shows in the flow's own packets: near the
 * server a reply queued on its way to the client shows in the rounds of a bulk flow on
 * the same pair (td_path_probe), and without one reads as the client's pause; a
 * request queued on its way to the server, seen near the client, as the server's
 * wait. Near the receiver a lost last segment's silence ends with a retransmission
 * the receiver sees as new data; it is a stall only when the sender numbers its IPv4
 * packets one by one (Linux, per connection) and skipped the numbers of the packets
 * lost, else it reads as the sender's wait. Not separable: a peer that vanished
 * reads as idle before the survivor's FIN (only the sender's side sees the
 * unanswered retransmissions). Without the handshake no round trip is
 * known: the waits then hold the capture point's round trips too, and the roles are
 * guessed from the ports (the lower port is the server's). */
#ifndef TCPDIAG_TIME_BUDGET_H
#define TCPDIAG_TIME_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include "handshake.h"
#include "record.h"

typedef enum td_time_part {
    TD_TIME_SETUP,
    TD_TIME_CLIENT_WAIT,
    TD_TIME_SERVER_WAIT,
    TD_TIME_TRANSFER,
    TD_TIME_STALL,
    TD_TIME_THINK,
    TD_TIME_IDLE,
    TD_TIME_PARTS
} td_time_part;

/* One endpoint's side of the budget. */
typedef struct td_time_side {
    uint32_t hi;            /* end of the highest payload it sent */
    uint32_t seq_top;       /* the highest sequence number its packets carried: beyond hi, a
                               pure ACK or FIN after data the capture never saw */
    uint32_t acked;         /* the peer's highest ACK of it */
    int64_t  turn_ns;       /* the peer's latest packet that handed it the turn */
    bool     turn_net;      /* ...which was the peer's: its round trip is the network's */
    bool     turn_answer;   /* ...and asked for an answer (hand_turn) */
    bool     turn_echoable; /* ...and was a pure ACK with a timestamp, */
    uint32_t turn_tsval;    /* ...this one: data echoing an older one left before it arrived */
    bool     seq_known;
    uint32_t fin_end;       /* its FIN's sequence number + 1, once it sent one */
    uint16_t retransmissions;   /* since its data was last all acknowledged */
    uint16_t unanswered;        /* of them, since the peer's ACK last moved on */
    bool     zero_window;   /* its latest window was 0 */
    bool     sent_data, sent_fin;
    bool     fin_retransmitted;
    bool     wrote_all;     /* its latest new data was shorter than its largest: its send queue
                               emptied there, its application's writes all sent */
    uint32_t max_payload;   /* its largest new data segment */
    /* Its IPv4 identifications: a sender that numbers its packets one by one (Linux
       does per connection) shows, by a gap, packets it sent that the capture never
       saw. */
    bool     id_known;
    uint16_t next_id;       /* the identification its next packet would carry */
    uint16_t ids_in_order, ids_out_of_order;
    uint8_t  ids_skipped;   /* before its latest packet; 0 none */
    bool     ids_jumped;    /* a step too large for a few lost packets */
    bool     ids_kept_quiet;    /* a step in order across a second or more of its silence */
    uint32_t last_sent_t20; /* its latest packet's time in units of 2^20 ns (about 1 ms) */
} td_time_side;

/* An endpoint's timestamp clock against the capture's: its first packet of the
 * handshake with a TSval, which a later packet's TSval and arrival compare with (how
 * much longer that one took on its way), and the clock's tick once read (0 unknown). */
typedef struct td_time_clock {
    int64_t  origin_ns;
    int64_t  tick_ns;
    uint32_t origin_tsval;
    bool     known;
} td_time_clock;

/* The waits and stalls whose longest span the budget remembers, with the frame that
 * ended it: where a cause read from the budget shows (diagnosis.c). Of a wait, only
 * the time before an answer counts there (answer_wait_ns): an endpoint owed its peer
 * an answer (a reply to a request, a next request after a reply, the first request
 * after the handshake); a sender pausing in its own stream after the peer
 * acknowledged all of it is the flight's app-limited pause, not a delay. */
typedef enum td_time_span {
    TD_SPAN_CLIENT_WAIT,
    TD_SPAN_SERVER_WAIT,
    TD_SPAN_STALL,
    TD_SPANS
} td_time_span;

/* What share of a flow's budget makes a cause of it (diagnosis.c reads it; kept here
 * beside the budget so the engine's configuration holds it without a cycle). */
typedef struct td_budget_config {
    unsigned min_share_pct;     /* a part names a cause from this share of the active time... */
    unsigned min_cost_ms;       /* ...and this long */
    unsigned long_rtt_ms;       /* a round trip this long can bound a short exchange */
    unsigned reference_rtt_ms;  /* ...whose cost is measured against this round trip */
    unsigned queue_rtt_ratio;   /* round trips this many times the empty path's are queued */
    unsigned timeout_floor_ms;  /* a stall's silence this long was a retransmission timer's */
} td_budget_config;

void td_budget_config_defaults(td_budget_config *cfg);

/* Where a wait reads the round trips of other flows on its path (flow.c's): the
 * latest round trip, capture point → `endpoint` → capture point, of another flow
 * sending data to that endpoint's address from its peer's, that ended in (after_ns,
 * by_ns]; 0 none. Near the server, a reply queued on its way to the client shows in
 * no packet of its own flow, but in the rounds of a bulk flow beside it. */
typedef struct td_path_probe {
    int64_t (*loop_toward)(const struct td_path_probe *probe, int endpoint, int64_t after_ns, int64_t by_ns);
    const void *engine, *flow;
} td_path_probe;

typedef struct td_time_budget {
    int64_t  part_ns[TD_TIME_PARTS];
    int64_t  first_ns;      /* the flow's first packet */
    int64_t  cursor_ns;     /* the latest packet time so far: time is charged up to it */
    int64_t  open_ns;       /* since the last event, not charged yet */
    int64_t  open_busy_ns;  /* ...of which data was outstanding */
    int64_t  zero_window_ns;    /* of the stall: a receiver's window at zero */
    int64_t  timeout_ns;        /* of the stall: silences of at least timeout_floor_ns before a
                                   retransmission, a timer's (fast recovery resends sooner) */
    int64_t  timeout_floor_ns;
    int64_t  answer_wait_ns[TD_SPAN_STALL];     /* of the waits: before an answer (below) */
    int64_t  longest_ns[TD_SPANS];
    uint32_t longest_frame[TD_SPANS];
    uint32_t frame;             /* the record being charged */
    int8_t   longest_stall_side;    /* the endpoint whose data waited in the longest stall; -1 none */
    uint32_t handshake_retry_frame;     /* the first SYN or SYN-ACK sent again */
    uint32_t zero_window_frame;         /* the first window closed to zero */
    uint32_t zero_windows;      /* windows closed to zero while the peer had data to send */
    uint32_t syns, synacks, exchanges;
    /* The record just charged, for exchange.c: its new payload bytes (0 none), and
     * whether they begin an exchange (the flow's first data, or a request after the
     * server's data). */
    uint32_t new_bytes;
    bool     begins_exchange;
    bool     reset;         /* a RST was seen */
    td_time_side side[2];   /* by endpoint */
    td_time_clock clock[2]; /* by endpoint; apart from side[], read only when a wait ends */
    td_path_probe probe;    /* set by the flow; loop_toward NULL: none */
    int8_t   guessed_client;    /* the roles from the ports, for a flow without its handshake */
    int8_t   last_data_sender;  /* -1: none yet */
    uint8_t  phase;         /* budget.c's phases */
} td_time_budget;

/* A budget that starts with the flow's first record, or (after_lone_syn) with the
 * SYN that a flow kept as one SYN sent at first_ns, before its second record. */
void td_time_budget_begin(td_time_budget *b, int64_t first_ns, bool after_lone_syn, const td_budget_config *cfg);
/* One record of the flow from endpoint `sender`; client is the client's endpoint,
 * -1 when unknown; hs the flow's handshake so far (its halves give the round trips). */
void td_time_budget_record(td_time_budget *b, const td_record *rec, int sender, int client,
                           const td_handshake *hs);
/* The capture has been read: the span since the last event is charged. */
void td_time_budget_end(td_time_budget *b);

static inline int64_t td_time_budget_part(const td_time_budget *b, td_time_part part)
{
    return b->part_ns[part];
}
/* The sum of the parts: the flow's first packet → its latest. */
int64_t td_time_budget_duration(const td_time_budget *b);
/* The duration less idle and think time: what the flow spent doing something. */
int64_t td_time_budget_active(const td_time_budget *b);
static inline uint32_t td_time_budget_syn_retransmissions(const td_time_budget *b)
{
    return b->syns > 1 ? b->syns - 1 : 0;
}
static inline uint32_t td_time_budget_synack_retransmissions(const td_time_budget *b)
{
    return b->synacks > 1 ? b->synacks - 1 : 0;
}
/* Requests answered: the server's new data after the client's. */
static inline uint32_t td_time_budget_exchanges(const td_time_budget *b)
{
    return b->exchanges;
}
/* Stalled time that was not a zero window: silences ended by a retransmission, and
 * retransmissions never answered. */
static inline int64_t td_time_budget_silence_ns(const td_time_budget *b)
{
    return b->part_ns[TD_TIME_STALL] - b->zero_window_ns;
}
/* Of the stall, the silences a retransmission timer ended: each at least the smallest
 * timeout (timeout_floor_ms). Fast recovery resends about a round trip after the loss,
 * while the data behind it still moves: its spans are the loss's, not a timeout's
 * (issue 37: an outage's cost overshot its silence by the recoveries after it). */
static inline int64_t td_time_budget_timeouts_ns(const td_time_budget *b)
{
    return b->timeout_ns;
}
/* The endpoint whose data or FIN, retransmitted, the peer never acknowledged by
 * the end of the capture (the peer or the path is gone), -1 none; *count its
 * retransmissions since the peer's ACK last moved on (those before it were answered). */
int td_time_budget_unanswered(const td_time_budget *b, unsigned *count);
/* The endpoint whose FIN, resent, its peer never acknowledged after the peer had sent
 * all it had and all of it was acknowledged: the peer left after the data, which cost
 * the application nothing; -1 none. */
int td_time_budget_left_by_peer(const td_time_budget *b);
/* How the flow stood at its last packet: "reset" (a RST), "closed" (a FIN each way),
 * "half-closed" (one FIN) or "open" (neither: still going, or cut by the capture's
 * end, or by an interrupted run). */
const char *td_time_budget_state(const td_time_budget *b);
/* "setup", "client_wait", ...: the field names' last part. */
const char *td_time_part_name(td_time_part part);

#endif
