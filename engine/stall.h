/* Host-wide stalls: periods in which one host sent nothing on any of its flows
 * while at least two of them were waiting on it (its transfer in progress, or a
 * request, SYN or FIN to it unanswered), one at least on a connection it held (SYNs
 * alone unanswered are a listener's drops as much). The OS X mbuf-exhaustion case:
 * every connection of a server stops at once for tens of seconds.
 *
 * Streaming: the engine hands over every packet; the detector keeps, per host,
 * the silences of the host as a whole and, per flow, the silences during which
 * the flow waited on that host. td_stalls_finish() pairs them. Needs nothing
 * from the flow model but its index, so flow.c calls it without a cycle. */
#ifndef TCPDIAG_STALL_H
#define TCPDIAG_STALL_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include "record.h"

typedef struct td_stall_config {
    unsigned min_ms;        /* a host silent this long... */
    unsigned min_flows;     /* ...while this many of its flows waited on it */
} td_stall_config;

void td_stall_config_defaults(td_stall_config *cfg);

struct td_host_silence;

/* Per flow and endpoint: what the detector needs to tell waiting from idle. */
typedef struct td_silence {
    struct td_host_silence *host;   /* the endpoint's host state, once it has one:
                                       spares a hash lookup per packet */
    int64_t last_sent_ns;   /* this endpoint's last packet on the flow */
    int64_t owed_since_ns;  /* the peer sent payload, SYN or FIN after it; -1 none */
    uint32_t data_end;      /* the end of the highest payload it sent, once sent_any_data */
    bool    sent_any;
    bool    sent_data;      /* this endpoint has sent payload since the peer last did:
                               its transfer is in progress */
    bool    sent_any_data;
    bool    past_syn;       /* this endpoint has sent a packet without SYN: it holds the
                               connection, not only its listener */
    bool    owes_synack;    /* the peer's SYN is what it has not answered */
} td_silence;

void td_silence_init(td_silence silence[2]);
/* The state a flow's first packet, a SYN without payload sent at t_ns, leaves:
 * a flow kept as a lone SYN gets its bookkeeping only with its second packet. */
void td_silence_after_lone_syn(td_silence silence[2], int sender, int64_t t_ns);

typedef struct td_stall {
    td_addr  host;
    int64_t  start_ns, end_ns;      /* the host's last packet before, first after */
    uint32_t last_frame, resume_frame;
    uint32_t flows_hit;
} td_stall;

/* A flow the stall hit, and what it cost that flow: its own silence, which
 * includes the retransmission backoff after the host came back. */
typedef struct td_stall_hit {
    uint32_t stall;                 /* index in td_stalls_at() */
    uint32_t resume_frame;          /* the host's first packet on this flow after its silence */
    int64_t  wait_start_ns, wait_end_ns;
} td_stall_hit;

typedef struct td_stalls td_stalls;

td_stalls *td_stalls_new(const td_stall_config *cfg);
void td_stalls_free(td_stalls *s);

/* One segment of flow `flow_index`, sent by endpoint `sender` (rec->src); the
 * payload bytes the sender and its peer have sent on the flow so far. silence
 * NULL: the flow is one SYN, which keeps no bookkeeping of its own (flow.h's lone
 * SYN), but its host's side of the SYN counts. */
void td_stalls_packet(td_stalls *s, td_silence silence[2], uint32_t flow_index, int sender,
                      const td_record *rec, uint64_t sent, uint64_t received);
/* A flow's first and last packet times, by its index. */
typedef void (*td_flow_span_fn)(uint32_t flow_index, const void *ctx, int64_t *first_ns, int64_t *last_ns);

/* The capture has been read: pair host silences with the flows that waited. */
void td_stalls_finish(td_stalls *s, td_flow_span_fn flow_span, const void *ctx);
/* Whether a flow that lived from first_ns to last_ns was open when its host came
 * back at end_ns: begun before, not over before. A flow the stall counts as
 * waiting always was, so the waiting flows never outnumber the open ones. */
bool td_stall_open_at_end(int64_t end_ns, int64_t first_ns, int64_t last_ns);

guint td_stalls_count(const td_stalls *s);
const td_stall *td_stalls_at(const td_stalls *s, guint index);
/* The longest stall that hit this flow, NULL when none did. */
const td_stall_hit *td_stalls_hit(const td_stalls *s, uint32_t flow_index);
/* The index of the stall that frame ended (the host's first packet after its
 * silence), -1 when none: one lookup a packet, whatever the number of stalls. */
int td_stalls_resumed_at(const td_stalls *s, uint32_t frame);
/* Waiting periods left out because a host had more than the detector keeps. */
uint64_t td_stalls_dropped(const td_stalls *s);

#endif
