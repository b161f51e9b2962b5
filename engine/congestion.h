/* Congestion signals and what the sender did about them: CE marks on data,
 * ECE echo episodes (or AccECN ACE increments) on the ACKs, CWR, losses, and
 * the flight one and two round trips after each response, per data direction.
 * It rides on flight.c's round trips through td_cc_ops (direction.h). */
#ifndef TCPDIAG_CONGESTION_H
#define TCPDIAG_CONGESTION_H

#include <stdbool.h>
#include <stdint.h>
#include "direction.h"
#include "record.h"

typedef enum td_cc_event_kind {
    TD_CC_ECE_START = 1,        /* first ACK of an ECE episode */
    TD_CC_ECE_END,              /* first ACK without ECE after one */
    TD_CC_CWR,                  /* the sender's CWR: its response to an echo */
    TD_CC_ACE,                  /* first data after the sender learnt of new ACE marks */
    TD_CC_LOSS,                 /* the retransmission that starts a recovery */
} td_cc_event_kind;

typedef enum td_reaction {
    TD_REACTION_UNKNOWN = 0,
    TD_REACTION_NO_SIGNAL,
    TD_REACTION_NONE,
    TD_REACTION_LOSS_LIKE,
    TD_REACTION_PROPORTIONAL,
} td_reaction;

typedef struct td_cc_event {
    uint32_t frame;
    uint8_t  kind;              /* td_cc_event_kind */
    bool     measured;          /* before and after are known */
    uint8_t  marked_pct;        /* ACE: share of segments marked around it; 255 unknown */
    int64_t  latency_ns;        /* ECE start: from the CE; CWR: from the first echo (sender's
                                   view); -1 when not observable */
    uint32_t before, after;     /* flight of the round before the signal / the smaller of
                                   the two rounds after the response */
    uint32_t second_after;      /* the second round after: a cut persists when it is still one
                                   there (BBR's gain-cycle dip lasts one round; a loss's first
                                   round after recovery may still hold SACKed data) */
    uint32_t round;             /* the round trip it came in */
    uint32_t typical;           /* median flight of the five round trips before it: the level a
                                   probing spike (BBR's gain 1.25, a round trip or two) does not set */
    bool     slow_start;        /* startup, or growing by half a round trip */
    bool     startup;           /* before, or just after, the flight's first fall (slow start;
                                   BBR's startup and drain) */
    /* Delivery rates (bytes acked per second of a round trip), for an ECN response in
     * startup, where the flight's level is no yardstick: the rate the flow had reached
     * (what it sent in the round before the response or in the response's round), and
     * the rate of what it sent in the second and third round after it; < 0 until
     * measured. */
    float    rate_before, rate_after;
} td_cc_event;

enum { TD_CC_MAX_EVENTS = 512, TD_CC_PENDING = 8, TD_CC_HISTORY = 8 };

typedef struct td_cc {
    td_ecn_feedback feedback;
    uint32_t ce, ece_episodes, cwr, ace_marks, losses;   /* cwr: answered echoes */
    /* ECE episodes in capture order */
    bool     ece_on;
    int64_t  first_ce_ns;               /* first CE since the last episode began, -1 none */
    /* the sender's view */
    int64_t  first_echo_ns;             /* first ECE since the last CWR, -1 none */
    bool     ace_unanswered;
    uint32_t window_marks, window_acked;    /* AccECN marks and bytes acked since new marks */
    int16_t  window_event;              /* the ACE response they weigh, -1 none */
    uint32_t ecn_round;                 /* round of the last ECN response, +1 */
    uint32_t responses;
    bool     in_recovery;
    uint32_t loss_round;                /* round of the last recovery's start, +1; 0 none */
    uint32_t recovery_point;
    uint32_t resent_high;               /* end of the highest data this recovery resent */
    uint32_t last_round_flight, signal_round;
    /* responses waiting for the round trips that show their effect */
    uint16_t pending[TD_CC_PENDING];
    uint32_t pending_round[TD_CC_PENDING];
    uint8_t  npending;
    /* collapse: the longest stretch of consecutive round trips at a few MSS while
       signals keep coming, and the stretch under way */
    uint32_t collapse_rounds, collapse_floor, collapse_start_frame;
    int64_t  collapse_ns;
    uint32_t run_rounds, run_floor, run_start_frame;
    int64_t  run_ns;
    /* the control: rounds with no response near them, and how many of those dipped as
       deep as a persistent cut (BBR's gain cycle and ProbeRTT dip with no signal at all) */
    uint32_t recent_flight[TD_CC_HISTORY];
    uint64_t close_acked[TD_CC_HISTORY];    /* bytes acked when those rounds closed */
    int64_t  close_ns[TD_CC_HISTORY];       /* and when (the closing ACK's capture time) */
    uint64_t acked;                     /* bytes acked so far */
    int64_t  last_ack_ns;               /* capture time of the last ACK delivered */
    bool     recent_response[TD_CC_HISTORY];
    uint32_t growth_end_round;          /* the first round whose flight fell: the end of
                                           slow start (BBR: of startup), +1; 0 before */
    uint32_t control_rounds, control_dips;
    /* results, settled by td_cc_ops.finish */
    double   ecn_ratio, loss_ratio;     /* medians, < 0 when none measured */
    double   cut_share;                 /* % of the measured responses whose cut persisted
                                           into the second round after */
    double   rose_share;                /* % of them after which the flight grew past
                                           1/0.9 of what it was */
    double   control_share;             /* % of comparable rounds without a signal that
                                           dipped as much; < 0 when too few to compare */
    uint32_t reductions;
    td_reaction reaction;
    td_cc_event *events;                /* in frame order after td_cc_ops.finish */
    uint16_t nevents, capacity;
} td_cc;


/* The ACKs seen in capture order give the ECE episodes and the CE → ECE latency;
 * delivered to the sender, the echo and AccECN marks it can answer. */
extern const td_dir_ops td_cc_ops;

/* The event recorded at this frame, NULL when none. */
const td_cc_event *td_cc_event_at(const td_cc *cc, uint32_t frame);
bool td_cc_collapsed(const td_cc *cc, const td_flight_config *cfg);
/* A sender's answer to an ECN signal (CWR, new AccECN marks), and to any signal
 * (those, or the retransmission that starts a recovery). */
static inline bool td_cc_is_ecn_response(const td_cc_event *e)
{
    return e->kind == TD_CC_CWR || e->kind == TD_CC_ACE;
}

static inline bool td_cc_is_response(const td_cc_event *e)
{
    return td_cc_is_ecn_response(e) || e->kind == TD_CC_LOSS;
}

/* The signals the sender answered were mostly ECN echoes: ECN signals came, and its
 * measured ECN responses are at least as many as its loss recoveries. */
bool td_cc_ecn_driven(const td_cc *cc);
/* Responses whose cut was measured: to ECN (CWR, AccECN marks) or to losses. */
unsigned td_cc_measured_responses(const td_cc *cc, bool ecn);
/* A response after which the flight fell below 0.9 of its level and was still there
 * in the second round trip after: a reduction (BBR's one-round drain after its probe
 * is none). An ECN response at the end of slow start is judged by the delivery rate
 * instead: it cut when what the second and third round after it sent stayed below 0.9
 * of the rate reached (BBR's drain empties a queue and keeps the rate). */
bool td_cc_lasting_cut(const td_cc_event *e);
/* A lasting cut of a sender whose signals caused its cuts (the reaction, settled by
 * td_cc_ops.finish, is loss-like or proportional): what tcpdiag calls a reduction. A
 * sender whose flight dips as much without signals (BBR) makes none. */
bool td_cc_is_reduction(const td_cc *cc, const td_cc_event *e);
/* A median response ratio (ecn_ratio, loss_ratio) that cut like a loss does. */
bool td_cc_cuts_like_loss(double median_ratio);
/* Which events this capture point cannot show (static text), NULL when none. */
const char *td_cc_unobserved(const td_dir *d, const td_cc *cc);

/* How far the reaction can be trusted: high, medium or low, by how many responses
 * were measured and whether the flow could be its own control. */
const char *td_cc_confidence(const td_cc *cc, uint32_t mss);
const char *td_reaction_name(td_reaction reaction);
const char *td_cc_event_name(td_cc_event_kind kind);

#endif
