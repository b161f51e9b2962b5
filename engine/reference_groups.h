/* The flows a slow flow is compared with, grouped by what they share: the same client,
 * the same client and server pair, the same sender; for each group the rates of the
 * flows in each reference set, and for a pair its empty path and the flows that filled
 * its queue.
 *
 * A flow's rate here is its busiest sender's payload over the flow's active time: a
 * cost is what that one direction lost against its peers, as a sender sees it. The
 * per-host rules (hosts.c) measure otherwise, on purpose: the client's ECN lottery
 * counts both directions' payload (what the client waited for, whichever way the bytes
 * went), and the sender's offload rule the flight's own throughput (what the segments
 * carried while they were in flight). The three answer three questions; none stands in
 * for another. */
#ifndef TCPDIAG_REFERENCE_GROUPS_H
#define TCPDIAG_REFERENCE_GROUPS_H

#include "flow.h"

/* The reference sets: the flows a flow is compared with, by what they share. */
typedef enum td_group_set {
    TD_SET_CLIENT_WITHOUT_ECN,  /* this client's flows to the same server that did not negotiate ECN */
    TD_SET_CLIENT_WITH_WSCALE,  /* this client's flows with window scaling */
    TD_SET_SENDER_FEW_LOSSES,   /* this sender's flows with fewer than two recoveries */
    TD_SET_SENDER_OFFLOADED,    /* this sender's flows that used offload */
    TD_SET_SENDER_NOT_RWND,     /* this sender's flows its receiver's window did not hold */
    TD_GROUP_SETS
} td_group_set;

/* A flow of a client and server pair that kept sending while nothing asked it to: the
 * kind that fills a bottleneck's queue for the pair's other flows. */
typedef struct td_queue_filler {
    uint32_t stream;
    int64_t  first_ns, last_ns;
} td_queue_filler;

typedef struct td_group {
    GArray *rates[TD_GROUP_SETS];   /* double B/s, then sorted */
    /* a client and server pair's: */
    int64_t path_rtt_ns;            /* the smallest handshake round trip of its flows, 0 none */
    GArray *fillers;                /* td_queue_filler, NULL none */
} td_group;

typedef struct td_groups td_groups;

td_groups *td_groups_new(void);
void td_groups_free(td_groups *g);
/* A flow's groups, made on first use: its client's, its client and server pair's, and
 * endpoint sender's. */
td_group *td_groups_client(td_groups *g, const td_flow *flow);
td_group *td_groups_pair(td_groups *g, const td_flow *flow);
td_group *td_groups_sender(td_groups *g, const td_flow *flow, int sender);
/* Once every flow is filed: each set sorted for its median. */
void td_groups_sort(td_groups *g);

void td_group_add(td_group *group, td_group_set set, double rate);
/* The median rate of a reference set (sorted), 0 when empty or group is NULL; *n its size. */
double td_group_median(const td_group *group, td_group_set set, uint32_t *n);

#endif
