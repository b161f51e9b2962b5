/* The flow model every analysis stands on: the flow table (endpoints,
 * client/server roles, the handshake, per-direction counts and each analysis'
 * state), the engine that feeds it records, and the queries on a flow. */
#ifndef TCPDIAG_FLOW_H
#define TCPDIAG_FLOW_H

#include <glib.h>
#include "addr.h"
#include "ecn.h"
#include "exchange.h"
#include "flight.h"
#include "handshake.h"
#include "nagle.h"
#include "pmtu.h"
#include "record.h"
#include "stall.h"
#include "time_budget.h"
#include "vantage.h"

/* When a flow's verdict is final (settle.c): capture time, in seconds. */
typedef struct td_settle_config {
    /* A closed flow (FIN both ways, or a RST) settles this long after its last packet:
     * the host rules compare it with the flows of the same hosts seen meanwhile. */
    unsigned window_s;
    /* A flow silent this long settles though it never closed. */
    unsigned idle_s;
} td_settle_config;

/* Thresholds an analyst can tune (Wireshark preferences in the glue). */
typedef struct td_config {
    /* One handshake half must carry at least this share of the handshake RTT
     * for the capture point to count as near one end. */
    unsigned vantage_dominance_pct;
    /* ...and exceed the other half by this much; both halves must exceed it
     * for "middle". Below it, host turnaround time hides the position. */
    unsigned vantage_min_delay_us;
    /* Set by the analyst who knows where the capture was taken. */
    td_vantage vantage_override;
    /* Flows kept in full; beyond, a new flow that is one SYN is kept only if its
     * next packet follows soon (a flood's SYNs are counted, not kept). 0: no limit. */
    unsigned max_flows;
    td_flight_config flight;
    td_stall_config stall;
    td_budget_config budget;
    td_nagle_config nagle;
    td_settle_config settle;
} td_config;

void td_config_defaults(td_config *cfg);

typedef struct td_dir_stats {
    uint32_t data_packets;
    uint64_t payload_bytes;
    uint32_t ecn_count[4];          /* data segments per td_ip_ecn codepoint */
    uint32_t first_data_frame;
    uint32_t first_ect_frame;       /* first data segment sent ECT or CE */
    int64_t  first_data_ns, last_data_ns;
    uint32_t first_frame_without_ts; /* after timestamps were negotiated */
    bool     sent_ts;               /* a segment after the handshake carried timestamps */
} td_dir_stats;

/* A flow that so far is one SYN (a flood's forged source, a scan, a dial not yet
 * answered) keeps only this, beside the identity in td_flow: the SYN is its
 * first frame at its first time, sent by the client. */
typedef struct td_lone_syn {
    uint32_t isn;
    uint16_t flags;
    int8_t   ip_ecn;                      /* td_ip_ecn, -1 when not known */
    td_syn_options opts;
} td_lone_syn;

/* Everything else, allocated at a flow's second packet (or its first, when that
 * is not a lone SYN): the whole handshake, the per-direction counts, the analyses. */
typedef struct td_flow_more {
    td_handshake hs;
    td_dir_stats sent[2];           /* by sending endpoint */
    td_flight *flight[2];           /* by sending endpoint, from its first data segment */
    td_silence silence[2];          /* by sending endpoint: host-stall bookkeeping */
    td_time_budget budget;          /* where the flow's time went */
    td_exchanges exchanges;         /* the exchange in progress, read from the budget */
    td_nagle nagle;                 /* small segments held until a delayed ACK */
    td_pmtu pmtu;                   /* segments cut smaller after full-size ones died */
    uint32_t icmp_quotes;           /* ICMP errors quoting one of its segments */
    uint32_t sizes_from_ip;         /* segments whose payload length came from the IP header */
} td_flow_more;

/* A flow: 120 bytes while it is one SYN, so a million-flow SYN flood costs
 * about as much as the frames that carry it (test/unit/test_flow.c checks it). */
typedef struct td_flow {
    uint32_t index;                 /* position in td_engine_flow_at() */
    uint32_t stream;
    td_addr  addr[2];               /* endpoint 0 sent the first captured packet */
    uint16_t port[2];
    int8_t   client;                /* endpoint index of the client, -1 unknown */
    uint8_t  ecn_outcome;           /* td_ecn_outcome */
    uint8_t  accecn_feedback;       /* td_ip_ecn */
    bool     beyond_limit : 1;      /* begun after max_flows flows: its SYN may not have been kept */
    uint8_t  fin_from : 2;          /* the endpoints that sent a FIN, a bit each */
    bool     reset : 1;             /* a RST was sent */
    bool     settled : 1;           /* its analyses are final and it takes no more packets
                                       (td_engine_settle, td_engine_finish) */
    bool     forgotten : 1;         /* past the settler's history: no other flow's rules read it */
    bool     released : 1;          /* ...and its memory is given back (td_engine_flow_at: NULL) */
    uint32_t packets, first_frame, last_frame;  /* of the TCP exchange: ICMP quotes left out */
    uint32_t ecn_decided_frame;     /* packet that settled the outcome (expert info goes there) */
    int64_t  first_ns, last_ns;
    const char *ecn_reason;         /* static text, NULL when none */
    td_lone_syn syn;                /* while more is NULL and the client is known */
    td_flow_more *more;             /* NULL while the flow is one SYN */
} td_flow;

/* The flow's handshake: its own, or for a lone SYN the one that SYN makes, built
 * in *scratch (which must outlive the use of the result). */
const td_handshake *td_flow_hs(const td_flow *flow, td_handshake *scratch);
/* What an endpoint sent (zeros for a lone SYN). */
const td_dir_stats *td_flow_sent(const td_flow *flow, int endpoint);
/* The analysis of the data an endpoint sent, NULL when it sent none. */
static inline td_flight *td_flow_flight(const td_flow *flow, int endpoint)
{
    return flow->more ? flow->more->flight[endpoint] : NULL;
}
uint32_t td_flow_icmp_quotes(const td_flow *flow);
/* From the first SYN to the last (retried) one, 0 without a retry. */
int64_t td_flow_syn_retry_ns(const td_flow *flow);
/* The handshake's round trip at the capture point from its last SYN (retry waits
 * left out), 0 when not measured. */
int64_t td_flow_handshake_rtt_ns(const td_flow *flow);
uint32_t td_flow_sizes_from_ip(const td_flow *flow);
/* Where the flow's time went (time_budget.h): all zero for a flow that is one SYN. */
const td_time_budget *td_flow_time_budget(const td_flow *flow);
/* Its segments held by Nagle until a delayed ACK (nagle.h), NULL for a lone SYN. */
const td_nagle *td_flow_nagle(const td_flow *flow);
/* The sender's path MTU black hole (pmtu.h), NULL when none or the flow is one SYN. */
const td_pmtu_run *td_flow_pmtu_blackhole(const td_flow *flow, int sender);
/* What it cost: its wait less the capture point's round trip to the sender (near the
 * receiver the smaller segments arrive that much after they were sent), as the time
 * budget reads waits; 0 without a black hole. */
int64_t td_flow_blackhole_ns(const td_flow *flow, int sender);

typedef struct td_engine td_engine;

td_engine *td_engine_new(const td_config *cfg);
void td_engine_free(td_engine *engine);

/* Feeds one packet. Returns its flow and stores the sending endpoint index in
 * *sender, or returns NULL when the packet cannot belong to the stream it
 * claims (addresses match neither endpoint) or its flow is not kept (yet): a
 * lone SYN beyond cfg->max_flows, which becomes a flow, first frame included,
 * if its next packet follows soon. */
td_flow *td_engine_add(td_engine *engine, const td_record *rec, int *sender);

/* A frame that quotes a segment of a known flow (an ICMP error): Wireshark's
 * tcp.stream puts it in the flow, but it is not part of the TCP exchange, so it
 * is counted on its own and leaves the packets, the frames and the duration alone. */
td_flow *td_engine_add_quoted(td_engine *engine, const td_record *rec);

/* A RST, or a FIN from each endpoint: the flow has ended. */
static inline bool td_flow_closed(const td_flow *flow)
{
    return flow->reset || flow->fin_from == 3;
}

/* The flow's analyses settle what is pending, as at the end of the capture, and it
 * takes no more packets: those that still come are counted (td_engine_late), not
 * analysed. Its verdict can then be given while the capture goes on (settle.c). */
void td_engine_settle(td_engine *engine, guint index);
/* A settled flow leaves the history the host rules and reference groups read
 * (flow->forgotten); with release, its analyses and, once its whole slab is released,
 * its slot are freed too, and td_engine_flow_at gives NULL for it: the front end has
 * what it needed (the command's streamed records). Packets that still come for a
 * released flow count as late. */
void td_engine_forget(td_engine *engine, guint index, bool release);
/* The report's history (series.h) goes into history from here on, kept under the
 * addresses of each flow's analyses (its flights, its Nagle sides, its budget): a
 * flow of an engine that keeps one is therefore never released (td_engine_forget
 * forgets it without release). The caller owns history and frees it after the engine. */
struct td_series_book;
void td_engine_keep_history(td_engine *engine, struct td_series_book *history);
/* Each exchange of a flow as it completes (exchange.h), to a front end that shows them
 * (the command's records, the plugin's fields); the engine keeps none of them. */
typedef void (*td_exchange_fn)(const td_flow *flow, const td_exchange *ex, void *ctx);
void td_engine_on_exchange(td_engine *engine, td_exchange_fn fn, void *ctx);
/* Packets that came for a flow after it settled. */
uint64_t td_engine_late(const td_engine *engine);
/* Pairs the host silences seen so far with the flows that waited (td_engine_stalls):
 * the host stalls as they stand at this point of the capture. */
void td_engine_pair_stalls(td_engine *engine);

/* The capture has been read completely: every flow not settled yet settles. */
void td_engine_finish(td_engine *engine);
bool td_engine_finished(const td_engine *engine);

/* Lone SYNs beyond cfg->max_flows that no packet followed in time: counted, not
 * kept (settled by td_engine_finish). */
uint64_t td_engine_not_kept(const td_engine *engine);

/* Flows in order of being kept: of first appearance, except that a flow held as
 * a lone SYN beyond max_flows comes when its second packet does. td_engine_flow_at
 * gives NULL for a released flow (td_engine_forget). */
guint td_engine_flow_count(const td_engine *engine);
const td_flow *td_engine_flow_at(const td_engine *engine, guint index);
/* The first flow at *index or after it that has not been released, its index in
 * *index; NULL when there is none. Released slabs are passed over whole, so that a
 * capture of hours costs the flows kept, not the flows it ever had:
 *     for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) */
const td_flow *td_engine_next_flow(const td_engine *engine, guint *index);

const td_config *td_engine_config(const td_engine *engine);
/* Host-wide stalls, settled by td_engine_finish(). */
const td_stalls *td_engine_stalls(const td_engine *engine);

bool td_flow_roles_known(const td_flow *flow);
/* Endpoint index of the server, -1 when roles are unknown. */
int td_flow_server(const td_flow *flow);
/* The sender of the i-th direction in display order (0, 1): client to server
 * first when roles are known, endpoint 0 first otherwise. */
int td_flow_sender_at(const td_flow *flow, int i);
/* "c2s" or "s2c" for data sent by that endpoint; NULL when roles are unknown. */
const char *td_flow_dir_name(const td_flow *flow, int sender);
/* The direction for a label: its role name, or by its addresses when roles are
 * unknown ("192.0.2.1:443 → 198.51.100.2:5000", IPv6 in brackets). */
enum { TD_DIR_LABEL_SIZE = 128 };    /* two bracketed IPv6 endpoints fit */
void td_flow_dir_label(const td_flow *flow, int sender, char *buf, size_t size);
/* "192.0.2.1:443" or "[2001:db8::1]:443". */
void td_flow_endpoint_format(const td_flow *flow, int endpoint, char *buf, size_t size);
const char *td_flow_data_sender(const td_flow *flow);
/* The data direction that carried most payload (the transfer an analyst cares
 * about): its sender's endpoint index, -1 when no direction carried data. */
int td_flow_busiest_sender(const td_flow *flow);
/* The capture point's vantage for this flow (vantage.h), with cfg's thresholds. */
td_vantage td_flow_vantage(const td_flow *flow, const td_config *cfg);
/* Handshake halves at the capture point, in ns; false when not measurable. */
bool td_flow_handshake_halves(const td_flow *flow, int64_t *syn_to_synack, int64_t *synack_to_ack);
td_ecn_data_use td_flow_ecn_data_use(const td_flow *flow, int sender);

#endif
