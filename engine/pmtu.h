/* Path MTU black holes, per sending endpoint of a flow: full-size segments that die on
 * the path (a hop with a smaller MTU whose ICMP "fragmentation needed" / "packet too
 * big" is filtered) until the sender, after its timeouts, sends smaller ones that get
 * through. A per-flow state machine fed the flow's records in order, O(1) per record,
 * no allocation; flow.c keeps it and diagnosis.c judges it (docs/diagnosis.md,
 * pmtu-blackhole).
 *
 * What it watches, on the sender's data against the segment size the handshake
 * allowed (the smaller announced MSS, less the timestamps option when both sides use
 * it):
 *   the reduced run  a segment below that size opens a candidate; it is a reduced run
 *                    when the sender then sends new data in segments of that same
 *                    smaller size while earlier data is still unacknowledged (a queue
 *                    cut at a smaller size, not an application's short write); a
 *                    full-size new segment before that closes the candidate;
 *   the wait         from the peer's last progress (its new data, or its ACK of more of
 *                    the sender's data) to the run's first segment: what the flow
 *                    waited for the full-size segments;
 *   the deaths       full-size segments retransmitted during the wait (a capture near
 *                    the sender), or new data of the run beyond a hole in the sequence
 *                    space (a capture past the hop: what was sent before never came);
 *   the way back     a full-size segment after the run that the peer acknowledged: the
 *                    path carried full size again (an outage, not an MTU). */
#ifndef TCPDIAG_PMTU_H
#define TCPDIAG_PMTU_H

#include <stdbool.h>
#include <stdint.h>
#include "handshake.h"
#include "record.h"

/* A reduced run: where it began, what the flow had waited, and what shows the deaths. */
typedef struct td_pmtu_run {
    int64_t  start_ns;
    int64_t  wait_ns;           /* the peer's last progress → start_ns */
    uint32_t frame;             /* the run's first segment */
    uint16_t size;              /* its size */
    uint16_t full_retransmissions;  /* full-size segments retransmitted during the wait */
    bool     hole;              /* the run's new data began beyond data never captured */
} td_pmtu_run;

/* One sender's side. */
typedef struct td_pmtu_side {
    uint16_t allowed;           /* segment size the handshake allowed; 0 not known yet */
    bool     off;               /* the handshake's MSS is not known: nothing is judged */
    bool     seq_known;
    bool     in_candidate, reduced;
    bool     back_to_full;      /* a full-size segment after a run was acknowledged */
    uint32_t hi;                /* end of the highest payload sent */
    uint32_t acked;             /* the peer's highest ACK of it */
    uint32_t full_end;          /* end of the latest full-size segment after a run, 0 none */
    int64_t  progress_ns;       /* the peer's last new data or ACK of more */
    uint16_t full_retransmissions;  /* since progress_ns */
    uint16_t last_reduced;      /* size of the latest segment below `allowed` */
    uint16_t largest_after;     /* the largest segment after the run began */
    td_pmtu_run candidate;
    td_pmtu_run run;            /* the confirmed run with the longest wait; frame 0 none */
} td_pmtu_side;

typedef struct td_pmtu {
    td_pmtu_side side[2];       /* by sending endpoint */
} td_pmtu;

/* One record of the flow from endpoint `sender`; hs the flow's handshake so far (the
 * MSS options and timestamps give the allowed size). */
void td_pmtu_record(td_pmtu *p, const td_record *rec, int sender, const td_handshake *hs);

/* The endpoint's confirmed reduced run, NULL when none: segments cut smaller after a
 * wait, with the deaths shown, and never full size again. */
const td_pmtu_run *td_pmtu_blackhole(const td_pmtu *p, int sender);

#endif
