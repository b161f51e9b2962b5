/* Bytes in flight per round trip, flat plateaus, and what limits the flight:
 * the receiver's window, the congestion window, the sender itself (send buffer,
 * burst limiter) or the application. One direction of one flow per td_flight.
 * The analyses that ride on its round trips (direction.h) keep their state in it. */
#ifndef TCPDIAG_FLIGHT_H
#define TCPDIAG_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include "congestion.h"
#include "offload.h"
#include "restart.h"
#include "record.h"

typedef enum td_limit {
    TD_LIMIT_UNKNOWN = 0,
    TD_LIMIT_RWND,
    TD_LIMIT_CWND,
    TD_LIMIT_SENDER,
    TD_LIMIT_APP,
    TD_LIMIT_COUNT
} td_limit;

/* What happened just before a plateau began. */
typedef enum td_onset {
    TD_ONSET_NONE = 0,
    TD_ONSET_START,
    TD_ONSET_RETRANSMISSION,
    TD_ONSET_ECN_ECHO,
    TD_ONSET_IDLE,
} td_onset;

/* ACKs on their way to the sender: slots of one timestamp tick (or 1/64 of the
 * lag without timestamps); the ring grows to this many, then delivers early. */
enum { TD_FLIGHT_RING_MIN = 16, TD_FLIGHT_RING_MAX = 1024 };

typedef struct td_plateau {
    uint32_t rounds, low, high;     /* range of the round flights */
    uint32_t rwnd_rounds;           /* rounds that reached the receive window */
    uint32_t lone_rounds;           /* rounds of a single segment, nothing else outstanding */
    uint32_t min_window;            /* smallest window offered meanwhile */
    uint32_t start_frame;
    int64_t  ns;                    /* duration */
    int64_t  unassigned_ns;         /* time not yet attributed to a factor */
    td_onset onset;
    td_limit limit;                 /* RWND or SENDER once judged; CWND when not a plateau */
} td_plateau;

/* One acknowledged round trip, for the per-packet tcpdiag.flight.round: its first
 * data segment and its largest flight. (The report's history, series.h, keeps a
 * decimated series of its own, and only when asked.) */
typedef struct td_round_start {
    uint32_t frame, flight;
} td_round_start;

/* A stretch of sequence space the capture saw skipped (data arrived beyond nxt), and
 * when: a segment that fills it sooner than any retransmission could (less than half
 * the capture point's round trip to the sender) was reordered on the path, not resent. */
typedef struct td_hole {
    uint32_t start, end;
    int64_t  opened_ns;
} td_hole;

/* Holes tracked at once (when more are open, the oldest is forgotten, and a segment
 * filling it counts as a retransmission): a path holding back 3 % of the segments 2-4 ms
 * at 10 MB/s had 14 open at its busiest (captures/lab/mech, mech-reorder). */
enum { TD_FLIGHT_HOLES = 16 };

typedef struct td_flight {
    /* What the analyses read (direction.h), by name here and as one struct for them. */
    union {
        td_dir dir;
        struct { TD_DIR_MEMBERS };
    };

    /* the report's history (series.h), which keeps each round and segment, NULL none */
    struct td_series_book *history;

    /* sequence space as the sender knows it, beyond nxt and una */
    uint32_t edge;
    bool     have_edge;
    uint32_t window;                /* latest offered window, scaled */
    td_ack_sample *ring;            /* ACKs still on their way to the sender */
    bool     ace_known;
    uint8_t  last_ace;              /* ACE field of the previous ACK captured */
    uint16_t ring_size, ring_first, ring_len;
    uint32_t tick_tsval;            /* the TSval of the newest slot made, */
    int64_t  tick_first_ns;         /* ...first seen then: a tick outlives its slot's delivery */
    bool     tick_known;
    int64_t  lag_ns;                /* current estimate of ctx.ack_lag_ns */
    int64_t  lag_window_min;
    uint8_t  lag_samples;

    /* the open round */
    bool     in_round;
    uint32_t round_end;
    int64_t  round_start_ns;
    uint8_t  round_events, next_round_events;
    bool     peer_sent;             /* the receiver sent payload since the sender's last new data */
    bool     idle;
    int64_t  idle_since_ns;

    td_hole  holes[TD_FLIGHT_HOLES];    /* empty: start == end */

    /* history */
    uint32_t max_flight, max_window, retransmissions;
    uint32_t reordered;             /* segments that filled a hole soon after it opened */
    int64_t  round_ns_total;
    /* Its latest round of more than a segment (flight.c's bulk_segment: a lone
     * segment's receiver may answer late) with no loss or ECN echo in it: capture
     * point → receiver → capture point, and when it ended here. A wait on another
     * flow on the same path reads it (td_flight_loop_ended). */
    int64_t  bulk_loop_ns, bulk_loop_end_ns;
    uint32_t peak_since_signal, peak_at_signal;
    td_onset last_event;
    uint32_t rounds_since_event;
    uint32_t first_rwnd_frame, first_retransmission_frame;
    int64_t  limit_ns[TD_LIMIT_COUNT];
    int64_t  longest_pause_ns;      /* the application's longest silence (see limit_ns[APP]) */
    uint32_t longest_pause_end_frame;   /* the segment that ended it */
    td_plateau run, best;
    td_round_start *round_log;      /* every round closed, in frame order (cfg->round_log) */
    uint32_t round_log_len, round_log_size;
    td_cc    cc;                    /* td_cc_ops' state */
    td_offload seg;                 /* td_offload_ops' state */
    td_restart restart;             /* td_restart_ops' state */
} td_flight;

void td_flight_config_defaults(td_flight_config *cfg);

/* A direction's first data segment: start measuring with what the flow knows,
 * or record why its flight cannot be measured (ctx == NULL). history: where the
 * report's history goes (td_engine_keep_history), NULL none. */
void td_flight_begin(td_flight *f, const td_flight_context *ctx, const char *unknown_reason,
                     struct td_series_book *history);
void td_flight_free(td_flight *f);

/* An ACK from this direction's receiver, and a data segment of its sender. */
void td_flight_ack(td_flight *f, const td_record *rec, const td_flight_config *cfg);
void td_flight_data(td_flight *f, const td_record *rec, const td_flight_config *cfg);

/* A flow without its handshake showed ECN in use (ECT data, ECE, CWR, or AE for
 * AccECN): its congestion signals are read from here on. */
void td_flight_learn_feedback(td_flight *f, td_ecn_feedback feedback);

/* End of capture: deliver the ACKs still on their way and close the books. */
void td_flight_finish(td_flight *f, const td_flight_config *cfg);

/* The dominant factor; *why explains unknown (static text). */
td_limit td_flight_limit(const td_flight *f, const char **why);
/* Time under each factor, in percent of the measured time (0 when none). */
double td_flight_share(const td_flight *f, td_limit limit);
int64_t td_flight_measured_ns(const td_flight *f);
/* New payload bytes per second over the measured time (0 when none). */
double td_flight_throughput(const td_flight *f);
/* The latest round trip toward the receiver (capture point → it → capture point) of a
 * round of more than a segment that ended in (after_ns, by_ns]; 0 none. */
static inline int64_t td_flight_loop_ended(const td_flight *f, int64_t after_ns, int64_t by_ns)
{
    return f->bulk_loop_end_ns > after_ns && f->bulk_loop_end_ns <= by_ns ? f->bulk_loop_ns : 0;
}

/* The longest plateau, NULL when none; its ceiling in B/s (plateau per round). */
const td_plateau *td_flight_plateau(const td_flight *f);
double td_plateau_ceiling(const td_plateau *p);
/* The flight of the acknowledged round trip whose first data segment is this frame:
 * false when none begins there. */
bool td_flight_round_at(const td_flight *f, uint32_t frame, uint32_t *flight);

const char *td_limit_name(td_limit limit);
const char *td_onset_name(td_onset onset);
const char *td_seen_from_name(td_seen_from seen);

#endif
