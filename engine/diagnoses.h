/* A capture's verdicts and where they are kept: the causes a flow can have (in order of
 * precedence), the references a cost is measured against, one flow's diagnosis, and
 * the table of every flow's diagnosis that the diagnosis (diagnosis.c) fills and every
 * front end reads. Kept apart from the rules that decide them (causes/), which read
 * these types, so that neither includes the other. */
#ifndef TCPDIAG_DIAGNOSES_H
#define TCPDIAG_DIAGNOSES_H

#include <stddef.h>
#include "flow.h"

/* In order of precedence: a cause higher up explains the symptoms of those below.
 * Each has its rule, cost, evidence and words in a file of its own (causes/), and is
 * registered once, in causes/registry.c, in this order. */
typedef enum td_cause {
    TD_CAUSE_NONE = 0,
    TD_CAUSE_HOST_STALL,
    TD_CAUSE_ECN_BLACKHOLE,
    TD_CAUSE_HANDSHAKE_RETRY,
    TD_CAUSE_DEAD_PEER,
    TD_CAUSE_PMTU_BLACKHOLE,
    TD_CAUSE_WINDOW_COLLAPSE,
    TD_CAUSE_OPTIONS_STRIPPED,
    TD_CAUSE_MISSING_OPTIONS,
    TD_CAUSE_ZERO_WINDOW,
    TD_CAUSE_QUEUEING_DELAY,
    TD_CAUSE_NAGLE_DELAYED_ACK,
    TD_CAUSE_RECEIVE_WINDOW,
    TD_CAUSE_SENDER_LIMITED,
    TD_CAUSE_OFFLOAD_CAPPED,
    TD_CAUSE_ECN_LOSS_REACTION,
    TD_CAUSE_PATH_LOSS,
    TD_CAUSE_SLOW_START_RESTART,
    TD_CAUSE_RETRANSMISSION_TIMEOUT,
    TD_CAUSE_SERVER_DELAY,
    TD_CAUSE_CLIENT_DELAY,
    TD_CAUSE_ROUND_TRIP_BOUND,
    TD_CAUSE_APP_LIMITED,
    TD_CAUSE_UNKNOWN,
    TD_CAUSE_COUNT
} td_cause;

/* What a flow's cost is measured against. */
typedef enum td_reference {
    TD_REF_NONE = 0,            /* nothing in the capture to compare with */
    TD_REF_CLIENT_FLOWS,        /* the same client's other flows */
    TD_REF_SENDER_FLOWS,        /* the same sender's flows without this problem */
    TD_REF_WINDOW_CEILING,      /* what the flow's window and round trip allowed */
    TD_REF_OWN_RATE,            /* the flow's own rate outside the episode */
    TD_REF_REFERENCE_RTT,       /* the same exchange at the reference round trip */
    TD_REF_ONE_ROUND_TRIP,      /* each exchange in one round trip, nothing held */
    TD_REF_EMPTY_PATH,          /* the same exchanges at the empty path's round trip */
} td_reference;

/* The flows that kept a queue full while a queueing-delay flow waited behind it
 * (tcp.stream), the first few of them. */
enum { TD_QUEUE_FILLERS_MAX = 4 };

typedef struct td_diagnosis {
    uint8_t  cause;             /* td_cause */
    uint8_t  reference;         /* td_reference */
    int8_t   sender;            /* endpoint whose data was diagnosed, -1 none */
    uint32_t causes;            /* 1 << td_cause for every cause that holds */
    uint32_t peers;             /* flows in the reference group */
    uint32_t evidence_frame;    /* where the primary cause shows first, 0 none */
    double   slowdown;          /* reference rate / this flow's rate; <= 0 unknown */
    int64_t  lost_ns;           /* time lost against the reference; < 0 unknown */
    const char *reason;         /* static text: why unknown, or a caveat on none */
    uint32_t queue_fillers;     /* queueing-delay: the flows that filled the queue... */
    uint32_t queue_filler_streams[TD_QUEUE_FILLERS_MAX];    /* ...the first of them */
    int64_t  path_rtt_ns;       /* queueing-delay: the empty path's round trip */
    int64_t  queued_rtt_ns;     /* ...and the flow's own, its rounds' mean */
} td_diagnosis;

typedef struct td_diagnoses td_diagnoses;

/* ---- made by the diagnosis (diagnosis.c) ---- */

/* Room for the diagnoses of `capacity` flows that carried more than one SYN; a settle
 * point's few flows (few) are found by a hash, the end's every flow by an array. */
td_diagnoses *td_diagnoses_new(const td_engine *engine, bool few, guint capacity);
/* The diagnosis to fill for a flow: a slot of its own, or, for a flow that was one SYN,
 * the one every such flow shares (filled once, through td_diagnoses_lone_syn). */
td_diagnosis *td_diagnoses_slot(td_diagnoses *d, const td_flow *flow);
td_diagnosis *td_diagnoses_lone_syn(td_diagnoses *d);
/* One more flow of the stalled host open when it came back from stall i. */
void td_diagnoses_count_open(td_diagnoses *d, guint stall);

/* ---- read by every front end ---- */

/* The flow keeps the diagnosis it was given when it settled (td_diagnose_flows), which
 * its record already carries, rather than one from the flows that came after. */
void td_diagnoses_keep(td_diagnoses *d, const td_flow *flow, const td_diagnosis *given);
void td_diagnoses_free(td_diagnoses *d);

/* NULL for a flow not diagnosed here (not among a settle point's, or released). */
const td_diagnosis *td_diagnosis_of(const td_diagnoses *d, const td_flow *flow);
/* Flows of the stalled host open when it came back from stall i (begun before), waiting or not. */
uint32_t td_diagnoses_stall_active(const td_diagnoses *d, guint stall);
const td_engine *td_diagnoses_engine(const td_diagnoses *d);

const char *td_reference_name(td_reference reference);

#endif
