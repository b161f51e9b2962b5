/* The interface between a data direction's round-trip bookkeeping (flight.c) and
 * the analyses that ride on it (congestion.c, offload.c), after the kernel's
 * tcp_congestion_ops: each analysis is one ops table over its own state, and reads
 * the direction's measurement (td_dir) that flight.c keeps up to date. flight.c
 * walks the analyses at each hook instead of calling them by name: rounds close and
 * ACKs reach the sender deep inside its own bookkeeping, so it is the one place that
 * knows when a hook is due.
 *
 * The dependency is one-way: an analysis knows this header and its own state, never
 * flight.h, so flight.c can hold the analyses' state and walk them without a cycle. */
#ifndef TCPDIAG_DIRECTION_H
#define TCPDIAG_DIRECTION_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"

struct td_series_book;

typedef enum td_ecn_feedback {
    TD_FEEDBACK_NONE = 0,       /* ECN not negotiated: loss is the only signal */
    TD_FEEDBACK_CLASSIC,        /* RFC 3168: sticky ECE until CWR */
    TD_FEEDBACK_ACCECN,         /* RFC 9768: the ACE counter */
} td_ecn_feedback;

/* Where the capture sits relative to this direction's sender. */
typedef enum td_seen_from {
    TD_SEEN_UNKNOWN = 0,
    TD_SEEN_SENDER,
    TD_SEEN_RECEIVER,
    TD_SEEN_MIDDLE,
} td_seen_from;

typedef struct td_flight_config {
    unsigned plateau_min_rounds;    /* flat rounds that make a plateau */
    unsigned plateau_band_pct;      /* round flights within this share (or one MSS) are flat */
    unsigned collapse_mss;          /* a flight this small while signals keep coming... */
    unsigned collapse_min_rounds;   /* ...for this many round trips is a collapse */
    unsigned restart_idle_ms;       /* a pause this long can restart slow start (restart.h)... */
    unsigned restart_share_pct;     /* ...when the next round's flight is at most this share of
                                       the flight the path was known to carry */
    /* Keep each round's first segment and flight for td_flight_round_at (the plugin's
     * per-packet tcpdiag.flight.round); off by default: the command prints no packet. */
    bool round_log;
} td_flight_config;

/* What the flow model tells a direction's analysis when its data starts. */
typedef struct td_flight_context {
    td_seen_from seen_from;
    int64_t  ack_lag_ns;    /* capture point → sender → capture point at the handshake: when
                               an ACK seen here has reached the sender, in this capture's
                               timeline (the first estimate; timestamps refine it) */
    bool     timestamps;    /* both sides use them: data says which ACK it answers */
    int      rcv_wscale;    /* the receiver's window shift, -1 when unknown */
    uint32_t peer_mss;      /* MSS the receiver announced, 0 when unknown */
    td_ecn_feedback feedback;   /* how the receiver echoes CE marks */
    bool     no_handshake;  /* measured from the data's timestamps alone (a capture that
                               starts mid-flow): no window scale, no vantage, and ECN
                               feedback taken from the flags once they show it */
} td_flight_context;

typedef struct td_ack_sample {
    int64_t  at_ns;         /* the latest ACK the slot holds */
    int64_t  first_ns;      /* the first: with timestamps, one TSval tick's ACKs share a slot */
    uint32_t ack, edge;     /* edge = ack + scaled window */
    uint32_t tsval;
    uint16_t ace_marks;     /* AccECN: CE marks counted since the slot before */
    bool     ece;
} td_ack_sample;

/* The direction's measurement, as the analyses read it. flight.h lays the same
 * members out inside td_flight (TD_DIR_MEMBERS), where the rest of the engine reads
 * them by name (f->mss), and hands the analyses &f->dir. */
#define TD_DIR_MEMBERS                                                                          \
    td_flight_context ctx;                                                                      \
    const char *unknown_reason;     /* static text; set when flight cannot be measured */     \
    uint32_t mss;                   /* largest full segment (td_offload_full_segment) */       \
    uint32_t nxt, una;              /* sequence space as the sender knows it */                 \
    uint32_t rounds;                /* round trips closed */                                    \
    uint32_t round_flight;          /* the open round's largest flight */                       \
    uint32_t round_start_frame;                                                                 \
    int64_t  round_pause_ns;        /* the application's pause the open round ended, 0 none */ \
    bool     round_at_window;       /* the round closing (on_round) reached the receiver's window */ \
    bool     round_answers;         /* it opened an answer to the peer's data: its flight was what   \
                                       the peer asked for, not what the window allowed */          \
    uint64_t new_bytes;             /* payload sent for the first time */                       \
    /* settled when the capture ends, before the analyses finish */                             \
    double   throughput;            /* new bytes per second of the measured time */             \
    uint32_t sender_plateau;        /* the longest plateau's flight when the sender held it,   \
                                       0 otherwise */                                           \
    bool     collapsed;             /* the congestion window collapsed (td_cc_collapsed) */

typedef struct td_dir {
    TD_DIR_MEMBERS
} td_dir;

/* begin and release are required, the other hooks may be NULL. `state` is the
 * analysis' own (td_cc, td_offload), which flight.c keeps for it. */
typedef struct td_dir_ops {
    /* true: begun and fed only on directions whose flight is measured (congestion needs
     * the rounds); false: on every data direction. release runs on every one. */
    bool measured_only;
    /* The direction's first data segment: d->ctx, or d->unknown_reason, is set. */
    void (*begin)(td_dir *d, void *state);
    void (*release)(void *state);
    /* Every data segment, before flight updates its sequence space (sizes, not rounds). */
    void (*on_segment)(td_dir *d, void *state, const td_record *rec);
    /* A data segment once flight has counted it; retransmission as flight judged it. */
    void (*on_data)(td_dir *d, void *state, const td_record *rec, bool retransmission);
    /* The receiver's ACK in capture order: what the capture point sees, when it sees it. */
    void (*on_ack_seen)(td_dir *d, void *state, const td_record *rec);
    /* The same ACK (or the slot it shares) once it has reached the sender, at at_ns:
     * what the sender can react to. It acknowledged `acked` new bytes. */
    void (*on_ack_delivered)(td_dir *d, void *state, const td_ack_sample *s, uint32_t acked, int64_t at_ns);
    /* Round trip `index` closed with this flight and duration (before d->rounds counts it). */
    void (*on_round)(td_dir *d, void *state, uint32_t index, uint32_t flight, int64_t ns,
                     const td_flight_config *cfg);
    /* A flow without its handshake showed which ECN feedback it uses: d->ctx.feedback. */
    void (*on_feedback)(td_dir *d, void *state);
    /* End of capture, after flight has closed its books. */
    void (*finish)(td_dir *d, void *state, const td_flight_config *cfg);
} td_dir_ops;

#endif
