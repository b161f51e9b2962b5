/* Per-host rules: what a host's flows say together that no flow says alone.
 * Per client: the ECN lottery (how many connections asked for ECN, how the ECN
 * flows fared against the same client's other flows) and SYNs without options.
 * Per sender: which flows used segmentation offload and which did not, and what
 * the ones without it have in common.
 *
 * Built from the flows that have settled (flow.h): once per capture from a finished
 * engine, or at each of settle.c's points while the capture goes on, in one pass over the flows
 * (O(flows) once, then O(1) per question); a flow that never carried data costs
 * one counter update. The plugin and the command read the same summaries. */
#ifndef TCPDIAG_HOSTS_H
#define TCPDIAG_HOSTS_H

#include <glib.h>
#include "flow.h"

typedef struct td_hosts_config {
    /* A client's ECN flows are "slower" when its other flows' median rate is at
     * least this many percent of the ECN flows' median rate (200 = twice as fast). */
    unsigned ecn_slowdown_pct;
} td_hosts_config;

void td_hosts_config_defaults(td_hosts_config *cfg);

/* One client address: every flow whose SYN was captured with known roles. */
typedef struct td_client_summary {
    td_addr  addr;
    uint32_t conns;
    uint32_t ecn_requested, ecn_negotiated;
    uint32_t opts_known;        /* SYNs whose options were read whole */
    uint32_t opts_missing;      /* ...of which lacked window scaling, SACK or timestamps */
    uint32_t opts_missing_frame;    /* the first such SYN (the evidence), 0 when none */
    /* Medians over the ECN flows and the other flows to the same server (like with
     * like), of the server where the ECN flows fared worst against the others; when no
     * server got both kinds, over all the client's flows, with no slowdown. < 0 when
     * the group is empty. Durations are the flows' active times (time_budget.h), and
     * rate = all payload bytes of the flow / its active time. */
    double   ecn_median_duration_s, other_median_duration_s;
    double   ecn_median_rate, other_median_rate;     /* B/s */
    double   ecn_slowdown;      /* other / ECN median rate; <= 0 unknown */
    bool     ecn_slower;        /* ecn_slowdown passes the configured threshold */
} td_client_summary;

typedef enum td_sender_offload {
    TD_SENDER_OFFLOAD_UNKNOWN = 0,
    TD_SENDER_OFFLOAD_MIXED,            /* some flows offloaded, some not */
    TD_SENDER_OFFLOAD_ALL_CAPPED,       /* several flows, none offloaded: a host setting */
    TD_SENDER_OFFLOAD_ALL_OFFLOADED,
} td_sender_offload;

/* Traits every capped flow of a mixed sender shares (bits of common). */
enum {
    TD_COMMON_ECN             = 1 << 0,
    TD_COMMON_ECN_AS_OFFLOADED = 1 << 1,   /* ...and so do all offloaded flows */
    TD_COMMON_DESTINATION     = 1 << 2,    /* the same receiver network (/24, /48) */
    TD_COMMON_RETRANSMISSION  = 1 << 3,    /* a retransmission before the cap */
};

/* One sender address: the busiest direction of each of its flows. */
typedef struct td_sender_summary {
    td_addr  addr;
    uint8_t  offload;           /* td_sender_offload */
    uint8_t  common;            /* TD_COMMON_* (mixed senders only) */
    uint32_t offloaded_flows, capped_flows;
    double   capped_median_rate, offloaded_median_rate;  /* B/s, < 0 when none */
} td_sender_summary;

typedef struct td_hosts td_hosts;

td_hosts *td_hosts_build(const td_engine *engine, const td_hosts_config *cfg);
void td_hosts_free(td_hosts *hosts);

/* In order of first appearance. */
guint td_hosts_client_count(const td_hosts *hosts);
const td_client_summary *td_hosts_client_at(const td_hosts *hosts, guint i);
guint td_hosts_sender_count(const td_hosts *hosts);
const td_sender_summary *td_hosts_sender_at(const td_hosts *hosts, guint i);

/* The summary a flow belongs to, NULL when it has none (no captured SYN, roles
 * unknown; no analysable data direction). */
const td_client_summary *td_hosts_client_of(const td_hosts *hosts, const td_flow *flow);
const td_sender_summary *td_hosts_sender_of(const td_hosts *hosts, const td_flow *flow);

/* The flow did not use offload while its sender's other flows did, and nothing
 * in the flow itself explains its cap (a collapse, a plateau). */
bool td_hosts_offload_unused(const td_hosts *hosts, const td_flow *flow);

/* The client summary of a flow that negotiated ECN when the host rule calls that
 * client's ECN flows slower than its other flows to the same server, and the flow
 * itself is slower than those by the threshold too; NULL otherwise (hosts may be
 * NULL). */
const td_client_summary *td_hosts_ecn_slower_of(const td_hosts *hosts, const td_flow *flow);

const char *td_sender_offload_name(td_sender_offload offload);
/* "ecn,destination", "ecn (as the offloaded)", or "nothing". */
void td_common_traits(unsigned common, char *buf, size_t size);

#endif
