/* One answer per flow: its causes in order of precedence, the primary one, and what it
 * cost against a reference the capture gives. */
#include "diagnosis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "hosts.h"
#include "median.h"

#include "options.h"

/* Two measured responses make a reaction, as two recoveries make a lossy path. */
enum { MIN_RESPONSES = 2, MIN_RECOVERIES = 2 };
/* A capped flow counts as offload-capped only this much slower than the
 * offloaded flows of its sender: a cap that costs nothing is not a cause. */
#define OFFLOAD_MIN_SLOWDOWN 1.5

/* Reference groups: the flows a flow is compared with, by what they share. */
typedef enum group_set {
    CLIENT_WITHOUT_ECN,         /* this client's flows to the same server that did not negotiate ECN */
    CLIENT_WITH_WSCALE,         /* this client's flows with window scaling */
    SENDER_FEW_LOSSES,          /* this sender's flows with fewer than two recoveries */
    SENDER_OFFLOADED,           /* this sender's flows that used offload */
    SENDER_NOT_RWND,            /* this sender's flows its receiver's window did not hold */
    GROUP_SETS
} group_set;

/* A flow of a client and server pair that kept sending while nothing asked it to: the
 * kind that fills a bottleneck's queue for the pair's other flows. */
typedef struct queue_filler {
    uint32_t stream;
    int64_t  first_ns, last_ns;
} queue_filler;

typedef struct group {
    GArray *rates[GROUP_SETS];  /* double B/s, then sorted */
    /* a client and server pair's (pair_hash): */
    int64_t path_rtt_ns;        /* the smallest handshake round trip of its flows, 0 none */
    GArray *fillers;            /* queue_filler, NULL none */
} group;

typedef struct flow_facts {
    const td_flight *f;         /* the busiest direction, NULL without data */
    int      sender;
    double   rate;              /* its payload bytes per second of the flow's active time */
    td_limit limit;
    const char *limit_why;
    td_options_audit audit;
    bool     ecn, wscale, lossy, offloaded, capped;
    group   *client, *to_server, *by_sender;
} flow_facts;

/* A flow that was one SYN reads like every other (diagnose_lone_syn): they share one
 * diagnosis, so that a million-flow SYN flood holds 4 bytes a flow here, not 40. */
enum { LONE_SYN_SLOT = UINT32_MAX, NOT_DIAGNOSED = UINT32_MAX - 1 };

struct td_diagnoses {
    const td_engine *engine;
    td_diagnosis  lone_syn;     /* every flow that was one SYN */
    td_diagnosis *flows;        /* the other flows', in flow order */
    uint32_t     *slot;         /* by flow index: its place in flows, LONE_SYN_SLOT or NOT_DIAGNOSED */
    GHashTable   *slot_of;      /* ...or, for a settle point's flows (td_diagnose_flows), index → slot + 1
                                   (a gsize: LONE_SYN_SLOT + 1 must not wrap to NULL) */
    guint     nflows;
    uint32_t *stall_active;     /* by stall index */
};

const char *td_cause_name(td_cause cause)
{
    static const char *const names[TD_CAUSE_COUNT] = {
        "none", "host-stall", "ecn-blackhole", "handshake-retry", "dead-peer", "pmtu-blackhole",
        "window-collapse", "options-stripped", "missing-options", "zero-window", "queueing-delay",
        "nagle-delayed-ack", "receive-window", "sender-limited", "offload-capped",
        "ecn-loss-reaction", "path-loss", "slow-start-restart", "retransmission-timeout", "server-delay", "client-delay",
        "round-trip-bound", "app-limited", "unknown",
    };
    return (unsigned)cause < TD_CAUSE_COUNT ? names[cause] : "unknown";
}

bool td_cause_read_from_budget(td_cause cause)
{
    switch (cause) {
    case TD_CAUSE_HANDSHAKE_RETRY:
    case TD_CAUSE_DEAD_PEER:
    case TD_CAUSE_ZERO_WINDOW:
    case TD_CAUSE_QUEUEING_DELAY:
    case TD_CAUSE_NAGLE_DELAYED_ACK:
    case TD_CAUSE_RETRANSMISSION_TIMEOUT:
    case TD_CAUSE_SERVER_DELAY:
    case TD_CAUSE_CLIENT_DELAY:
    case TD_CAUSE_ROUND_TRIP_BOUND:
        return true;
    default:
        return false;
    }
}

const char *td_reference_name(td_reference reference)
{
    switch (reference) {
    case TD_REF_CLIENT_FLOWS:   return "client-flows";
    case TD_REF_SENDER_FLOWS:   return "sender-flows";
    case TD_REF_WINDOW_CEILING: return "window-ceiling";
    case TD_REF_OWN_RATE:       return "own-rate";
    case TD_REF_REFERENCE_RTT:  return "reference-rtt";
    case TD_REF_ONE_ROUND_TRIP: return "one-round-trip";
    case TD_REF_EMPTY_PATH:     return "empty-path";
    case TD_REF_NONE:           break;
    }
    return "none";
}

void td_causes_list(unsigned causes, char *buf, size_t size)
{
    size_t used = 0;

    if (!size)
        return;
    buf[0] = '\0';
    for (int c = TD_CAUSE_HOST_STALL; c < TD_CAUSE_UNKNOWN; c++)
        if (causes & (1u << c))
            used += (size_t)g_snprintf(buf + MIN(used, size - 1), size - MIN(used, size - 1), "%s%s",
                                     used ? "," : "", td_cause_name((td_cause)c));
    if (!used)
        g_strlcpy(buf, "none", size);
}

/* ---------------------------------------------------------------- groups */

static void group_free(gpointer data)
{
    group *g = data;
    for (int i = 0; i < GROUP_SETS; i++)
        if (g->rates[i])
            g_array_free(g->rates[i], TRUE);
    if (g->fillers)
        g_array_free(g->fillers, TRUE);
    g_free(g);
}

/* A group by its key: an address (td_addr_hash), or a flow standing for its client
 * and server pair (pair_hash). */
static group *group_of(GHashTable *groups, gconstpointer key)
{
    group *g = g_hash_table_lookup(groups, key);
    if (!g) {
        g = g_new0(group, 1);
        g_hash_table_insert(groups, (gpointer)key, g);
    }
    return g;
}

/* A flow as the key of its client and server: ECN flows are compared with the
 * client's other flows to the same server, since servers differ in how they answer
 * ECN (a CUBIC server cuts on every echo, a BBR server does not). */
static guint pair_hash(gconstpointer key)
{
    const td_flow *flow = key;
    return td_addr_hash(&flow->addr[flow->client]) * 31u + td_addr_hash(&flow->addr[1 - flow->client]);
}

static gboolean pair_equal(gconstpointer a, gconstpointer b)
{
    const td_flow *x = a, *y = b;
    return td_addr_equal(&x->addr[x->client], &y->addr[y->client]) &&
           td_addr_equal(&x->addr[1 - x->client], &y->addr[1 - y->client]);
}

static void group_add(group *g, group_set set, double rate)
{
    if (!g->rates[set])
        g->rates[set] = g_array_new(FALSE, FALSE, sizeof(double));
    g_array_append_val(g->rates[set], rate);
}

static void group_sort(gpointer key G_GNUC_UNUSED, gpointer value, gpointer data G_GNUC_UNUSED)
{
    group *g = value;
    for (int i = 0; i < GROUP_SETS; i++)
        if (g->rates[i])
            g_array_sort(g->rates[i], td_compare_double);
}

/* The median rate of a reference set (sorted), 0 when empty; *n its size. */
static double group_median(const group *g, group_set set, uint32_t *n)
{
    const GArray *r = g ? g->rates[set] : NULL;

    *n = r ? r->len : 0;
    return *n ? td_median_sorted((const double *)(const void *)r->data, *n) : 0;
}

/* ---------------------------------------------------------------- facts */

/* The time a flow was active (its time budget's duration less idle time): rates,
 * slowdowns and time lost are measured on it, so a short reply followed by minutes of
 * keep-alive is not slow, and no flow loses more time than it was active. */
static int64_t active_ns(const td_flow *flow)
{
    return td_time_budget_active(td_flow_time_budget(flow));
}

static void gather(const td_flow *flow, flow_facts *x)
{
    int64_t ns = active_ns(flow);

    memset(x, 0, sizeof *x);
    x->sender = td_flow_busiest_sender(flow);
    x->f = x->sender < 0 ? NULL : td_flow_flight(flow, x->sender);
    td_options_audit_flow(flow, &x->audit);
    x->ecn = td_ecn_negotiated(flow->ecn_outcome);
    x->wscale = x->audit.used[TD_USED_WSCALE] == TD_YES;
    if (!x->f)
        return;
    x->rate = ns > 0 ? (double)td_flow_sent(flow, x->sender)->payload_bytes * 1e9 / (double)ns : 0;
    x->limit = td_flight_limit(x->f, &x->limit_why);
    x->lossy = x->f->cc.losses >= MIN_RECOVERIES;
    x->offloaded = x->f->seg.result.verdict == TD_OFFLOAD_OFFLOADED;
    x->capped = x->f->seg.result.verdict == TD_OFFLOAD_CAPPED || x->f->seg.result.verdict == TD_OFFLOAD_MSS_CAPPED;
}

/* The reference groups a flow with a rate belongs to, made on first use. */
static void find_groups(GHashTable *clients, GHashTable *pairs, GHashTable *senders, const td_flow *flow,
                        flow_facts *x)
{
    if (!x->f || x->rate <= 0)
        return;
    if (td_flow_roles_known(flow)) {
        x->client = group_of(clients, &flow->addr[flow->client]);
        x->to_server = group_of(pairs, flow);
    }
    x->by_sender = group_of(senders, &flow->addr[x->sender]);
}

static void file_in_groups(const flow_facts *x)
{
    if (x->client) {
        if (!x->ecn)
            group_add(x->to_server, CLIENT_WITHOUT_ECN, x->rate);
        if (x->wscale)
            group_add(x->client, CLIENT_WITH_WSCALE, x->rate);
    }
    if (!x->by_sender)
        return;
    if (!x->lossy)
        group_add(x->by_sender, SENDER_FEW_LOSSES, x->rate);
    if (x->offloaded)
        group_add(x->by_sender, SENDER_OFFLOADED, x->rate);
    if (x->limit != TD_LIMIT_RWND)
        group_add(x->by_sender, SENDER_NOT_RWND, x->rate);
}

/* A transfer of more data round trips than slow start's few per exchange was bound by
 * something else than its exchanges (its window, its rate), which the flight analysis
 * judges. */
enum { ROUNDS_PER_EXCHANGE = 4 };
/* Exchanges that make a flow of exchanges (a request/response conversation). */
enum { MIN_EXCHANGES = 4 };

/* A conversation of requests and prompt, short answers: at least MIN_EXCHANGES of them,
 * each in a few round trips. */
static bool exchange_flow(const td_flow *flow, const flow_facts *x)
{
    uint32_t exchanges = td_time_budget_exchanges(td_flow_time_budget(flow));

    return x->f && exchanges >= MIN_EXCHANGES && x->f->rounds <= (uint64_t)ROUNDS_PER_EXCHANGE * exchanges;
}

/* A flow that kept sending while nothing asked it to: many more round trips than its
 * exchanges (a download), the kind that fills a bottleneck's queue. */
static bool sends_unasked(const td_flow *flow, const flow_facts *x)
{
    uint32_t exchanges = td_time_budget_exchanges(td_flow_time_budget(flow));

    return x->f && x->f->rounds > (uint64_t)ROUNDS_PER_EXCHANGE * MAX(exchanges, 1u);
}

/* What the pair's queueing-delay flows are measured against: the pair's empty path
 * (the smallest handshake round trip of its flows: one made before a queue built), and
 * the flows that kept sending unasked, which fill queues. */
static void file_in_pair(const td_flow *flow, const flow_facts *x)
{
    int64_t rtt = td_flow_handshake_rtt_ns(flow);
    group *g = x->to_server;

    if (!g)
        return;
    if (rtt > 0 && (!g->path_rtt_ns || rtt < g->path_rtt_ns))
        g->path_rtt_ns = rtt;
    if (!sends_unasked(flow, x))
        return;
    if (!g->fillers)
        g->fillers = g_array_new(FALSE, FALSE, sizeof(queue_filler));
    g_array_append_val(g->fillers, ((queue_filler){ flow->stream, flow->first_ns, flow->last_ns }));
}

/* ---------------------------------------------------------------- causes */

static bool ecn_loss_reaction(const flow_facts *x)
{
    const td_cc *cc = &x->f->cc;
    unsigned ecn = td_cc_measured_responses(cc, true);

    /* With ECN signals the reaction is judged on the ECN responses: loss-like means
     * their median cut like a loss. */
    return x->ecn && x->limit == TD_LIMIT_CWND && ecn >= MIN_RESPONSES && ecn >= cc->losses &&
           cc->reaction == TD_REACTION_LOSS_LIKE;
}

static bool path_loss(const flow_facts *x)
{
    const td_cc *cc = &x->f->cc;
    /* The cuts must be the losses' doing (cc.reaction): BBR's loss recovery shrinks
     * the flight for a round trip and restores it. */
    return x->limit == TD_LIMIT_CWND && x->lossy && cc->reaction == TD_REACTION_LOSS_LIKE &&
           td_cc_cuts_like_loss(cc->loss_ratio);
}

/* A part that is where the time of a whole went: a large share of it and long in
 * itself (td_budget_config). */
static bool takes_share(const td_config *cfg, int64_t part_ns, int64_t whole_ns)
{
    /* in double: a hostile capture's clock can span centuries, whose ns times 100
       would overflow */
    return whole_ns > 0 && part_ns >= (int64_t)cfg->budget.min_cost_ms * 1000000 &&
           (double)part_ns * 100.0 >= (double)whole_ns * cfg->budget.min_share_pct;
}

/* The time the flow was active less the applications' waits: what a slow-start
 * restart is judged and costed against, since the pauses that caused it stay the
 * applications' (client-delay's or server-delay's). */
static int64_t transfer_ns(const td_flow *flow)
{
    const td_time_budget *b = td_flow_time_budget(flow);

    return active_ns(flow) - td_time_budget_part(b, TD_TIME_CLIENT_WAIT) - td_time_budget_part(b, TD_TIME_SERVER_WAIT);
}

/* Slow-start restarts whose cost (restart.h) is where the transfer's time went: a
 * large share of transfer_ns, and long in itself. */
static bool slow_start_restart(const td_config *cfg, const td_flow *flow, const flow_facts *x)
{
    return x->f->restart.restarts && takes_share(cfg, x->f->restart.cost_ns, transfer_ns(flow));
}

/* Capped with nothing in the flow to explain it, while the sender's offloaded
 * flows went markedly faster. */
static bool offload_capped(const flow_facts *x)
{
    uint32_t n;
    double offloaded = group_median(x->by_sender, SENDER_OFFLOADED, &n);

    return x->capped && x->f->seg.result.cap_cause == TD_CAP_CAUSE_NONE && n && x->rate > 0 &&
           offloaded >= OFFLOAD_MIN_SLOWDOWN * x->rate;
}

/* The flight's round trips took queue_rtt_ratio times the handshake's: it stood in a
 * queue at the bottleneck it filled itself, so the bottleneck was busy all along. */
static bool queue_standing(const td_config *cfg, const td_flow *flow, const td_flight *f)
{
    int64_t handshake = td_flow_handshake_rtt_ns(flow);

    return handshake > 0 && f->rounds &&
           (int64_t)(f->round_ns_total / f->rounds) >= (int64_t)cfg->budget.queue_rtt_ratio * handshake;
}

/* The window held the flight flat: a window that autotuning kept growing, which
 * the flight met now and then on its way up, held nothing. A transfer too short for a
 * plateau is held when its flight filled the largest window ever offered: a window
 * that never outgrew the flight (a fixed SO_RCVBUF), where autotuning offers ahead.
 * A window-held flight standing in a queue (queue_standing) held nothing either: the
 * path ran at its bottleneck's rate, and a larger window would only lengthen the queue
 * (issue 30: 18 KB/s whether the flight sat at the 82 KB window or at 35 KB). */
static bool receive_window(const td_config *cfg, const td_flow *flow, const flow_facts *x)
{
    const td_plateau *p = td_flight_plateau(x->f);
    const td_flight *f = x->f;

    if (x->limit != TD_LIMIT_RWND || queue_standing(cfg, flow, f))
        return false;
    if (p && p->limit == TD_LIMIT_RWND)
        return true;
    return f->rounds < cfg->flight.plateau_min_rounds && f->max_window && f->max_flight >= f->max_window;
}

/* Window scaling missing from a SYN that reached the capture point with NOPs where its
 * options had been: the path took it out, and the capture shows it. A SYN seen whole
 * that merely lacks it (or a SYN-ACK that answered without it) cannot tell the side's
 * choice from a strip before the capture point: that stays missing-options. */
static bool options_stripped(const td_options_audit *audit)
{
    return ((audit->left_out_by_client & TD_OPT_WSCALE) && audit->overwritten[0]) ||
           ((audit->left_out_by_server & TD_OPT_WSCALE) && audit->overwritten[1]);
}

/* ---------------------------------------------------------------- the time budget */

/* A part of the flow's time budget that is where its time went: of its active time. */
static bool dominates(const td_config *cfg, const td_flow *flow, int64_t part_ns)
{
    return takes_share(cfg, part_ns, active_ns(flow));
}

/* The handshake's own round trip is no retry's cost: a SYN never answered cost all
 * of its setup. */
static int64_t retry_ns(const td_flow *flow)
{
    return MAX(0, td_time_budget_part(td_flow_time_budget(flow), TD_TIME_SETUP) - td_flow_handshake_rtt_ns(flow));
}

static bool handshake_retry(const td_config *cfg, const td_flow *flow, const td_time_budget *b)
{
    return (td_time_budget_syn_retransmissions(b) || td_time_budget_synack_retransmissions(b)) &&
           dominates(cfg, flow, retry_ns(flow));
}

/* The path's round trip: the handshake's, or the data's mean when shorter (a
 * handshake whose SYN retry crossed the SYN-ACK looks longer than the path). */
static int64_t path_rtt_ns(const td_flow *flow, const flow_facts *x)
{
    int64_t rtt = td_flow_handshake_rtt_ns(flow);

    if (x->f && x->f->rounds && (!rtt || x->f->round_ns_total / x->f->rounds < rtt))
        rtt = x->f->round_ns_total / x->f->rounds;
    return rtt;
}

/* Round trips of the path's length, at the reference round trip: what a short
 * exchange would have taken on a near path. The setup and the transfer are the
 * network's time; a transfer of more data round trips than slow start's few per
 * exchange was bound by something else (its window, its rate), which the flight
 * analysis judges. */
static int64_t round_trip_cost_ns(const td_config *cfg, const td_flow *flow, const flow_facts *x,
                                  const td_time_budget *b)
{
    int64_t rtt = path_rtt_ns(flow, x), ref = (int64_t)cfg->budget.reference_rtt_ms * 1000000;
    int64_t network = td_time_budget_part(b, TD_TIME_SETUP) + td_time_budget_part(b, TD_TIME_TRANSFER);

    if (!td_flow_roles_known(flow) || rtt < (int64_t)cfg->budget.long_rtt_ms * 1000000 || rtt <= ref ||
        sends_unasked(flow, x) || !dominates(cfg, flow, network))
        return 0;
    return (int64_t)((double)network * (1.0 - (double)ref / (double)rtt));
}

/* Holds that make Nagle with delayed ACKs a pattern, exchange after exchange, rather
 * than a coincidence. */
enum { MIN_NAGLE_HOLDS = 3 };

/* The time the held sender's small segments waited for delayed ACKs (nagle.h), 0
 * below MIN_NAGLE_HOLDS holds. */
static int64_t nagle_held_ns(const td_flow *flow)
{
    const td_nagle *n = td_flow_nagle(flow);
    int held = n ? td_nagle_held_sender(n) : -1;

    return held < 0 || n->side[held].holds < MIN_NAGLE_HOLDS ? 0 : n->side[held].held_ns;
}

/* A flow of exchanges (it sent little itself) whose round trips took many times the
 * empty path's: the smaller of its handshake's and of the handshakes of the pair's
 * other flows (one made before the queue built: a SYN-ACK can wait in the queue too).
 * Its round trips: its network time (setup and transfer) over the round trips it made
 * (its handshake, and its flight's rounds or its exchanges when more: a capture point
 * whose ACK clock is off merges rounds, never exchanges). What it cost: that time over
 * the same round trips on the empty path; 0 when the rule does not hold. */
static int64_t queueing_cost_ns(const td_config *cfg, const td_flow *flow, const flow_facts *x, int64_t *path_rtt,
                                int64_t *queued_rtt)
{
    const td_time_budget *b = td_flow_time_budget(flow);
    int64_t setup = td_time_budget_part(b, TD_TIME_SETUP);
    int64_t network = setup + td_time_budget_part(b, TD_TIME_TRANSFER);
    int64_t path = td_flow_handshake_rtt_ns(flow), round_trips, queued;

    if (!exchange_flow(flow, x))
        return 0;
    if (x->to_server && x->to_server->path_rtt_ns && (!path || x->to_server->path_rtt_ns < path))
        path = x->to_server->path_rtt_ns;
    round_trips = (int64_t)MAX(x->f->rounds, td_time_budget_exchanges(b)) + (setup > 0);
    queued = network / round_trips;
    if (path <= 0 || queued < (int64_t)cfg->budget.queue_rtt_ratio * path)
        return 0;
    *path_rtt = path;
    *queued_rtt = queued;
    return network - round_trips * path;
}

/* The causes the budget shows: each part that dominates the flow's active time. A
 * zero window holds also when the receiver's window held the flight and closed:
 * the reader, not the window's size, set the pace. */
static unsigned budget_causes(const td_config *cfg, const td_flow *flow, const flow_facts *x)
{
    const td_time_budget *b = td_flow_time_budget(flow);
    unsigned causes = 0, retransmissions;
    int64_t path_rtt, queued_rtt;

    if (handshake_retry(cfg, flow, b))
        causes |= 1u << TD_CAUSE_HANDSHAKE_RETRY;
    if (dominates(cfg, flow, td_time_budget_silence_ns(b)))
        causes |= 1u << (td_time_budget_unanswered(b, &retransmissions) >= 0 ? TD_CAUSE_DEAD_PEER
                                                                              : TD_CAUSE_RETRANSMISSION_TIMEOUT);
    if (b->zero_windows && (dominates(cfg, flow, b->zero_window_ns) || (x->f && !x->f->unknown_reason &&
                                                                         receive_window(cfg, flow, x))))
        causes |= 1u << TD_CAUSE_ZERO_WINDOW;
    if (dominates(cfg, flow, queueing_cost_ns(cfg, flow, x, &path_rtt, &queued_rtt)))
        causes |= 1u << TD_CAUSE_QUEUEING_DELAY;
    if (dominates(cfg, flow, nagle_held_ns(flow)))
        causes |= 1u << TD_CAUSE_NAGLE_DELAYED_ACK;
    if (dominates(cfg, flow, b->answer_wait_ns[TD_SPAN_SERVER_WAIT]))
        causes |= 1u << TD_CAUSE_SERVER_DELAY;
    if (dominates(cfg, flow, b->answer_wait_ns[TD_SPAN_CLIENT_WAIT]))
        causes |= 1u << TD_CAUSE_CLIENT_DELAY;
    if (round_trip_cost_ns(cfg, flow, x, b) >= (int64_t)cfg->budget.min_cost_ms * 1000000)
        causes |= 1u << TD_CAUSE_ROUND_TRIP_BOUND;
    return causes;
}

static unsigned causes_of(const td_engine *engine, const td_flow *flow, const flow_facts *x)
{
    const td_config *cfg = td_engine_config(engine);
    unsigned causes = budget_causes(cfg, flow, x);

    if (td_stalls_hit(td_engine_stalls(engine), flow->index))
        causes |= 1u << TD_CAUSE_HOST_STALL;
    if (x->sender >= 0 && dominates(cfg, flow, td_flow_blackhole_ns(flow, x->sender)))
        causes |= 1u << TD_CAUSE_PMTU_BLACKHOLE;
    if (flow->ecn_outcome == TD_ECN_FALLBACK)
        causes |= 1u << TD_CAUSE_ECN_BLACKHOLE;
    if (x->audit.at_ceiling == TD_YES && (x->audit.missing & TD_OPT_WSCALE))
        causes |= 1u << (options_stripped(&x->audit) ? TD_CAUSE_OPTIONS_STRIPPED : TD_CAUSE_MISSING_OPTIONS);
    if (!x->f || x->f->unknown_reason)
        return causes;
    if (td_cc_collapsed(&x->f->cc, &cfg->flight))
        causes |= 1u << TD_CAUSE_WINDOW_COLLAPSE;
    if (receive_window(cfg, flow, x))
        causes |= 1u << TD_CAUSE_RECEIVE_WINDOW;
    if (x->limit == TD_LIMIT_SENDER)
        causes |= 1u << TD_CAUSE_SENDER_LIMITED;
    if (offload_capped(x))
        causes |= 1u << TD_CAUSE_OFFLOAD_CAPPED;
    if (ecn_loss_reaction(x))
        causes |= 1u << TD_CAUSE_ECN_LOSS_REACTION;
    if (path_loss(x))
        causes |= 1u << TD_CAUSE_PATH_LOSS;
    if (slow_start_restart(cfg, flow, x))
        causes |= 1u << TD_CAUSE_SLOW_START_RESTART;
    if (x->limit == TD_LIMIT_APP)
        causes |= 1u << TD_CAUSE_APP_LIMITED;
    return causes;
}

/* ---------------------------------------------------------------- cost */

static void against_rate(td_diagnosis *d, const td_flow *flow, const flow_facts *x, double reference)
{
    double bytes = (double)td_flow_sent(flow, x->sender)->payload_bytes;
    int64_t ns = active_ns(flow);

    if (reference <= 0 || x->rate <= 0)
        return;
    d->slowdown = reference / x->rate;
    d->lost_ns = (int64_t)MAX(0.0, (double)ns - bytes * 1e9 / reference);
}

/* The slowdown of a time `ns` that would have been ns - d->lost_ns without the loss;
 * left as it is when the loss is not within it. */
static void slowdown_within(td_diagnosis *d, int64_t ns)
{
    if (ns > d->lost_ns && d->lost_ns >= 0)
        d->slowdown = (double)ns / (double)(ns - d->lost_ns);
}

/* Time lost within the flow's own life (an episode, or a part of its time budget):
 * the slowdown is what the active time would have been without it. The reference is
 * the caller's to name. */
static void against_own_time(td_diagnosis *d, const td_flow *flow, int64_t lost, td_reference reference)
{
    d->reference = reference;
    d->lost_ns = lost;
    slowdown_within(d, active_ns(flow));
}

/* A group that was no faster than the flow shows no cost: the caller may try
 * another reference, and the flow keeps its cause on the evidence alone. */
static bool against_group(td_diagnosis *d, const td_flow *flow, const flow_facts *x, const group *g,
                          group_set set, td_reference reference)
{
    uint32_t peers;
    double median = group_median(g, set, &peers);

    if (!peers || median <= x->rate)
        return false;
    d->peers = peers;
    d->reference = reference;
    against_rate(d, flow, x, median);
    return true;
}

/* The rate the largest offered window allowed at the flow's mean round trip. */
static void against_window(td_diagnosis *d, const flow_facts *x)
{
    const td_flight *f = x->f;
    double rtt_s = f->rounds ? (double)f->round_ns_total / f->rounds / 1e9 : 0;
    double throughput = td_flight_throughput(f);

    if (rtt_s <= 0 || !f->max_window || throughput <= 0)
        return;
    d->reference = TD_REF_WINDOW_CEILING;
    d->slowdown = f->max_window / rtt_s / throughput;
    d->lost_ns = (int64_t)MAX(0.0, (double)td_flight_measured_ns(f) - (double)f->new_bytes * 1e9 * rtt_s / f->max_window);
}

/* The pair's flows that kept sending unasked while this one lived: what filled the
 * queue it waited in. */
static void name_queue_fillers(td_diagnosis *d, const td_flow *flow, const flow_facts *x)
{
    const GArray *fillers = x->to_server ? x->to_server->fillers : NULL;

    for (guint i = 0; fillers && i < fillers->len; i++) {
        const queue_filler *q = &g_array_index(fillers, queue_filler, i);
        if (q->stream == flow->stream || q->last_ns < flow->first_ns || q->first_ns > flow->last_ns)
            continue;
        if (d->queue_fillers < TD_QUEUE_FILLERS_MAX)
            d->queue_filler_streams[d->queue_fillers] = q->stream;
        d->queue_fillers++;
    }
}

static void cost_of(const td_engine *engine, const td_flow *flow, const flow_facts *x, td_diagnosis *d)
{
    const td_config *cfg = td_engine_config(engine);
    const td_time_budget *b = td_flow_time_budget(flow);
    const td_stall_hit *hit;
    const td_plateau *p;

    d->slowdown = 0;
    d->lost_ns = -1;
    d->reference = TD_REF_NONE;
    switch ((td_cause)d->cause) {
    case TD_CAUSE_HOST_STALL:
        hit = td_stalls_hit(td_engine_stalls(engine), flow->index);
        against_own_time(d, flow, hit->wait_end_ns - hit->wait_start_ns, TD_REF_OWN_RATE);
        break;
    case TD_CAUSE_ECN_BLACKHOLE:
        against_own_time(d, flow, td_flow_syn_retry_ns(flow), TD_REF_OWN_RATE);
        break;
    case TD_CAUSE_HANDSHAKE_RETRY:
        against_own_time(d, flow, retry_ns(flow), TD_REF_NONE);
        break;
    case TD_CAUSE_DEAD_PEER:
    case TD_CAUSE_RETRANSMISSION_TIMEOUT:
        against_own_time(d, flow, td_time_budget_silence_ns(b), TD_REF_NONE);
        break;
    case TD_CAUSE_PMTU_BLACKHOLE:
        against_own_time(d, flow, td_flow_blackhole_ns(flow, x->sender), TD_REF_NONE);
        break;
    case TD_CAUSE_ZERO_WINDOW:
        /* The reader set the pace of the whole transfer, not only while the window
           was at zero: measured like a receive window, against the sender's flows
           its receivers did not hold, when there are any. */
        if (!x->f || !against_group(d, flow, x, x->by_sender, SENDER_NOT_RWND, TD_REF_SENDER_FLOWS))
            against_own_time(d, flow, b->zero_window_ns, TD_REF_NONE);
        break;
    case TD_CAUSE_QUEUEING_DELAY:
        against_own_time(d, flow, queueing_cost_ns(cfg, flow, x, &d->path_rtt_ns, &d->queued_rtt_ns),
                         TD_REF_EMPTY_PATH);
        name_queue_fillers(d, flow, x);
        break;
    case TD_CAUSE_NAGLE_DELAYED_ACK:
        against_own_time(d, flow, nagle_held_ns(flow), TD_REF_ONE_ROUND_TRIP);
        break;
    case TD_CAUSE_SERVER_DELAY:
        against_own_time(d, flow, b->answer_wait_ns[TD_SPAN_SERVER_WAIT], TD_REF_NONE);
        break;
    case TD_CAUSE_CLIENT_DELAY:
        against_own_time(d, flow, b->answer_wait_ns[TD_SPAN_CLIENT_WAIT], TD_REF_NONE);
        break;
    case TD_CAUSE_ROUND_TRIP_BOUND:
        against_own_time(d, flow, round_trip_cost_ns(cfg, flow, x, b), TD_REF_REFERENCE_RTT);
        break;
    case TD_CAUSE_WINDOW_COLLAPSE:
    case TD_CAUSE_ECN_LOSS_REACTION:
        if (x->ecn && against_group(d, flow, x, x->to_server, CLIENT_WITHOUT_ECN, TD_REF_CLIENT_FLOWS))
            break;
        against_window(d, x);
        break;
    case TD_CAUSE_OPTIONS_STRIPPED:
    case TD_CAUSE_MISSING_OPTIONS:
        against_group(d, flow, x, x->client, CLIENT_WITH_WSCALE, TD_REF_CLIENT_FLOWS);
        break;
    case TD_CAUSE_RECEIVE_WINDOW:
        against_group(d, flow, x, x->by_sender, SENDER_NOT_RWND, TD_REF_SENDER_FLOWS);
        break;
    case TD_CAUSE_SENDER_LIMITED:
        p = td_flight_plateau(x->f);
        if (p && p->high && p->min_window > p->high) {
            d->reference = TD_REF_WINDOW_CEILING;
            d->slowdown = (double)p->min_window / p->high;
            d->lost_ns = (int64_t)((double)p->ns * (1.0 - (double)p->high / p->min_window));
        }
        break;
    case TD_CAUSE_OFFLOAD_CAPPED:
        against_group(d, flow, x, x->by_sender, SENDER_OFFLOADED, TD_REF_SENDER_FLOWS);
        break;
    case TD_CAUSE_PATH_LOSS:
        if (!against_group(d, flow, x, x->by_sender, SENDER_FEW_LOSSES, TD_REF_SENDER_FLOWS))
            against_window(d, x);
        break;
    case TD_CAUSE_SLOW_START_RESTART:
        against_own_time(d, flow, x->f->restart.cost_ns, TD_REF_NONE);
        /* the restarts slowed the transfer, not the pauses */
        slowdown_within(d, transfer_ns(flow));
        break;
    case TD_CAUSE_APP_LIMITED:
        /* The application's own silences are no time the network lost: its pauses
           are named (the summary), not counted as a cost. */
        break;
    case TD_CAUSE_NONE:
    case TD_CAUSE_UNKNOWN:
    case TD_CAUSE_COUNT:
        break;
    }
    /* A measure taken on another span (a plateau's rounds, the flight's measured time,
     * a host stall's wait) cannot cost more than the time the flow was active. */
    d->lost_ns = MIN(d->lost_ns, active_ns(flow));
}

static uint32_t evidence_frame(const td_engine *engine, const td_flow *flow, const flow_facts *x, td_cause cause)
{
    const td_plateau *p;
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    const td_time_budget *b = td_flow_time_budget(flow);

    switch (cause) {
    case TD_CAUSE_HANDSHAKE_RETRY:
        return b->handshake_retry_frame;
    case TD_CAUSE_DEAD_PEER:
    case TD_CAUSE_RETRANSMISSION_TIMEOUT:
        return b->longest_frame[TD_SPAN_STALL];
    case TD_CAUSE_PMTU_BLACKHOLE:
        return td_flow_pmtu_blackhole(flow, x->sender)->frame;
    case TD_CAUSE_ZERO_WINDOW:
        return b->zero_window_frame;
    case TD_CAUSE_QUEUEING_DELAY:
        return td_flow_sent(flow, x->sender)->first_data_frame;
    case TD_CAUSE_NAGLE_DELAYED_ACK:
        return td_flow_nagle(flow)->side[td_nagle_held_sender(td_flow_nagle(flow))].first_frame;
    case TD_CAUSE_SERVER_DELAY:
        return b->longest_frame[TD_SPAN_SERVER_WAIT];
    case TD_CAUSE_CLIENT_DELAY:
        return b->longest_frame[TD_SPAN_CLIENT_WAIT];
    case TD_CAUSE_ROUND_TRIP_BOUND:
        return hs->synack_frame;
    case TD_CAUSE_HOST_STALL:
        return td_stalls_hit(td_engine_stalls(engine), flow->index)->resume_frame;
    case TD_CAUSE_ECN_BLACKHOLE:
        return hs->fallback_frame;
    case TD_CAUSE_OPTIONS_STRIPPED:
        return (x->audit.left_out_by_client & TD_OPT_WSCALE) && x->audit.overwritten[0] ? hs->last_syn_frame
                                                                                         : hs->synack_frame;
    case TD_CAUSE_MISSING_OPTIONS:
        return hs->synack_frame ? hs->synack_frame : hs->last_syn_frame;
    case TD_CAUSE_WINDOW_COLLAPSE:
        return x->f->cc.collapse_start_frame;
    case TD_CAUSE_RECEIVE_WINDOW:
        return x->f->first_rwnd_frame;
    case TD_CAUSE_SENDER_LIMITED:
        p = td_flight_plateau(x->f);
        return p ? p->start_frame : 0;
    case TD_CAUSE_OFFLOAD_CAPPED:
        return x->f->seg.result.cap_start_frame ? x->f->seg.result.cap_start_frame
                                                : td_flow_sent(flow, x->sender)->first_data_frame;
    case TD_CAUSE_ECN_LOSS_REACTION:
        for (unsigned i = 0; i < x->f->cc.nevents; i++)
            if (td_cc_is_ecn_response(&x->f->cc.events[i]))
                return x->f->cc.events[i].frame;
        return 0;
    case TD_CAUSE_PATH_LOSS:
        return x->f->first_retransmission_frame;
    case TD_CAUSE_SLOW_START_RESTART:
        return x->f->restart.frame;
    case TD_CAUSE_APP_LIMITED:
        return x->f->longest_pause_end_frame ? x->f->longest_pause_end_frame
                                             : td_flow_sent(flow, x->sender)->first_data_frame;
    case TD_CAUSE_NONE:
    case TD_CAUSE_UNKNOWN:
    case TD_CAUSE_COUNT:
        break;
    }
    return 0;
}

/* Why a flow that carried no payload is unknown. A SYN never answered says more than
 * "nothing was transferred": a client waited on a server, a firewall or a lost path,
 * and the time budget says how long and how often (tcpdiag.time.setup,
 * tcpdiag.time.syn_retransmissions); the packets need no handshake for that. */
#define SYN_UNANSWERED "no payload: the SYN was never answered in the capture"
static const char *no_payload_reason(const td_flow *flow)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);

    if (!hs->first_syn_frame || hs->synack_frame)
        return "no payload: nothing was transferred";
    return td_time_budget_syn_retransmissions(td_flow_time_budget(flow))
           ? "no payload: the SYN was retried and never answered in the capture (how long: tcpdiag.time.setup)"
           : SYN_UNANSWERED;
}

/* With no cause: healthy, or unknown when the capture cannot show it. */
static td_cause no_cause(const td_flow *flow, const flow_facts *x, const char **reason)
{
    if (!td_flow_sent(flow, 0)->payload_bytes && !td_flow_sent(flow, 1)->payload_bytes) {
        *reason = no_payload_reason(flow);
        return TD_CAUSE_UNKNOWN;
    }
    if (!x->f || x->f->unknown_reason) {
        *reason = x->f ? x->f->unknown_reason : "no data direction could be analysed";
        return TD_CAUSE_UNKNOWN;
    }
    if (x->f->ctx.no_handshake) {
        *reason = "handshake not captured: the window scale and the capture point are unknown";
        return TD_CAUSE_UNKNOWN;
    }
    if (x->f->ctx.rcv_wscale < 0) {
        *reason = "window scale unknown (handshake options not captured): the receive window cannot be judged";
        return TD_CAUSE_UNKNOWN;
    }
    if (x->limit == TD_LIMIT_UNKNOWN && x->f->rounds >= 4) {
        *reason = x->limit_why;
        return TD_CAUSE_UNKNOWN;
    }
    if (x->limit == TD_LIMIT_UNKNOWN)
        *reason = "a short transfer: fewer than 4 round trips, too few for anything to hold it back";
    return TD_CAUSE_NONE;
}

static void diagnose_flow(const td_engine *engine, const td_hosts *hosts, const td_flow *flow, const flow_facts *x,
                          td_diagnosis *d)
{
    memset(d, 0, sizeof *d);
    d->sender = (int8_t)x->sender;
    d->causes = causes_of(engine, flow, x);
    d->cause = TD_CAUSE_NONE;
    for (int c = TD_CAUSE_HOST_STALL; c < TD_CAUSE_UNKNOWN && d->cause == TD_CAUSE_NONE; c++)
        if (d->causes & (1u << c))
            d->cause = (uint8_t)c;
    if (d->cause == TD_CAUSE_NONE)
        d->cause = (uint8_t)no_cause(flow, x, &d->reason);
    cost_of(engine, flow, x, d);
    d->evidence_frame = evidence_frame(engine, flow, x, (td_cause)d->cause);
    /* One answer: a flow the host rule calls slower is not healthy even when no
       analysis of its own shows why (an echo not seen answered, a flow too short). */
    if (d->cause == TD_CAUSE_NONE && td_hosts_ecn_slower_of(hosts, flow)) {
        d->cause = TD_CAUSE_UNKNOWN;
        d->reason = "this client's ECN flows are slower than its other flows (tcpdiag.host.ecn_slowdown); the "
                    "capture does not show why";
        if (x->f)
            against_group(d, flow, x, x->to_server, CLIENT_WITHOUT_ECN, TD_REF_CLIENT_FLOWS);
    }
}

static void free_indices(gpointer data)
{
    g_array_free(data, TRUE);
}

/* Stall indices by stalled host, so each flow looks only at its own hosts' stalls. */
static GHashTable *stalls_by_host(const td_stalls *stalls)
{
    GHashTable *by_host = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, free_indices);

    for (guint i = 0; i < td_stalls_count(stalls); i++) {
        const td_stall *s = td_stalls_at(stalls, i);
        GArray *indices = g_hash_table_lookup(by_host, &s->host);
        if (!indices) {
            indices = g_array_new(FALSE, FALSE, sizeof(guint));
            g_hash_table_insert(by_host, (gpointer)&s->host, indices);
        }
        g_array_append_val(indices, i);
    }
    return by_host;
}

/* Flows of a stalled host open when it came back, waiting or not: begun before its
 * silence ended, and not over before (td_stall_open_at_end, which every waiting
 * flow passes). A flow that opened inside the silence (its SYN unanswered until the
 * end) can wait through it, so it counts as open too; counting only flows open
 * across the whole silence gave "2 of 1 flows waiting". */
static void count_active(td_diagnoses *d, const td_stalls *stalls, GHashTable *by_host, const td_flow *flow)
{
    for (int e = 0; e < 2; e++) {
        const GArray *indices = g_hash_table_lookup(by_host, &flow->addr[e]);
        if (!indices || (e == 1 && td_addr_equal(&flow->addr[0], &flow->addr[1])))
            continue;
        for (guint k = 0; k < indices->len; k++) {
            guint i = g_array_index(indices, guint, k);
            const td_stall *s = td_stalls_at(stalls, i);
            if (td_stall_open_at_end(s->end_ns, flow->first_ns, flow->last_ns))
                d->stall_active[i]++;
        }
    }
}

/* A flow that was one SYN: nothing was transferred, and nothing else can hold
 * (a stall, a fallback or a window ceiling all need a second packet). */
static void diagnose_lone_syn(td_diagnosis *d)
{
    memset(d, 0, sizeof *d);
    d->sender = -1;
    d->cause = TD_CAUSE_UNKNOWN;
    d->reason = SYN_UNANSWERED;
    d->lost_ns = -1;
}

/* Flows that were more than one SYN (each needs a diagnosis of its own). */
static guint with_data(const td_engine *engine)
{
    const td_flow *flow;
    guint count = 0;

    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++)
        count += flow->more != NULL;
    return count;
}

static void set_slot(td_diagnoses *d, guint index, uint32_t slot)
{
    if (d->slot_of)
        g_hash_table_insert(d->slot_of, GUINT_TO_POINTER(index), GSIZE_TO_POINTER((gsize)slot + 1));
    else
        d->slot[index] = slot;
}

/* A flow's slot: its place in flows, LONE_SYN_SLOT or NOT_DIAGNOSED. */
static uint32_t slot_of(const td_diagnoses *d, guint index)
{
    if (d->slot_of) {
        gpointer found = g_hash_table_lookup(d->slot_of, GUINT_TO_POINTER(index));
        return found ? (uint32_t)(GPOINTER_TO_SIZE(found) - 1) : NOT_DIAGNOSED;
    }
    return index < d->nflows ? d->slot[index] : NOT_DIAGNOSED;
}

/* Whether any flow listed in only (every flow when only is NULL) is more than one SYN. */
static bool some_carried_data(const td_engine *engine, const guint *only, guint n)
{
    for (guint k = 0; only && k < n; k++)
        if (td_engine_flow_at(engine, only[k])->more)
            return true;
    return !only;
}

/* Diagnoses the flows listed in only (n of them, in flow order), or every flow when only
 * is NULL; the others have no diagnosis (td_diagnosis_of gives NULL), nor has a
 * released flow. The reference groups hold every flow that has settled and is not
 * past the settler's history. */
static td_diagnoses *diagnose(const td_engine *engine, const td_hosts *hosts, const guint *only, guint n)
{
    td_diagnoses *d = g_new0(td_diagnoses, 1);
    guint nflows = td_engine_flow_count(engine), more = 0;
    const td_stalls *stalls = td_engine_stalls(engine);
    GHashTable *clients = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, group_free);
    GHashTable *pairs = g_hash_table_new_full(pair_hash, pair_equal, NULL, group_free);
    GHashTable *senders = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, group_free);
    flow_facts x;

    d->engine = engine;
    d->nflows = nflows;
    /* a point's few flows by index; the end's every flow in a table */
    if (only)
        d->slot_of = g_hash_table_new(g_direct_hash, g_direct_equal);
    else {
        d->slot = g_new(uint32_t, MAX(nflows, 1));
        for (guint i = 0; i < nflows; i++)
            d->slot[i] = NOT_DIAGNOSED;
    }
    diagnose_lone_syn(&d->lone_syn);
    GHashTable *by_host = stalls_by_host(stalls);

    /* The facts are gathered twice, first for the groups and then for the causes,
     * rather than kept: a million-flow capture would hold them all at once. */
    d->stall_active = g_new0(uint32_t, MAX(td_stalls_count(stalls), 1));
    /* flows that were one SYN read no group and no stall (diagnose_lone_syn): a point
     * where only such flows settle (a flood's, after the idle timeout) reads no other flow */
    const td_flow *flow;
    guint read = some_carried_data(engine, only, n) ? nflows : 0;
    for (guint i = 0; i < read && (flow = td_engine_next_flow(engine, &i)); i++) {
        /* a stall's flows are the stall detector's, which forgets none: counted while
         * kept (a released flow's record was given with the count of its time) */
        if (td_stalls_count(stalls))
            count_active(d, stalls, by_host, flow);
        /* what no later flow may read any more (settle.h) */
        if (flow->forgotten || !flow->more || !flow->settled)
            continue;
        gather(flow, &x);
        find_groups(clients, pairs, senders, flow, &x);
        file_in_groups(&x);
        file_in_pair(flow, &x);
    }
    g_hash_table_destroy(by_host);
    g_hash_table_foreach(clients, group_sort, NULL);
    g_hash_table_foreach(pairs, group_sort, NULL);
    g_hash_table_foreach(senders, group_sort, NULL);
    d->flows = g_new0(td_diagnosis, MAX(only ? n : with_data(engine), 1));
    for (guint k = 0; k < (only ? n : nflows); k++) {
        flow = only ? td_engine_flow_at(engine, only[k]) : td_engine_next_flow(engine, &k);
        if (!flow)
            continue;
        set_slot(d, flow->index, flow->more ? more : LONE_SYN_SLOT);
        if (!flow->more)
            continue;
        gather(flow, &x);
        find_groups(clients, pairs, senders, flow, &x);
        diagnose_flow(engine, hosts, flow, &x, &d->flows[more++]);
    }
    g_hash_table_destroy(clients);
    g_hash_table_destroy(pairs);
    g_hash_table_destroy(senders);
    return d;
}

td_diagnoses *td_diagnose(const td_engine *engine, const td_hosts *hosts)
{
    return diagnose(engine, hosts, NULL, 0);
}

td_diagnoses *td_diagnose_flows(const td_engine *engine, const td_hosts *hosts, const guint *indices, guint n)
{
    return diagnose(engine, hosts, indices, n);
}

void td_diagnoses_keep(td_diagnoses *d, const td_flow *flow, const td_diagnosis *given)
{
    uint32_t slot = slot_of(d, flow->index);

    if (slot < NOT_DIAGNOSED)
        d->flows[slot] = *given;
}

void td_diagnoses_free(td_diagnoses *d)
{
    if (!d)
        return;
    g_free(d->flows);
    g_free(d->slot);
    if (d->slot_of)
        g_hash_table_destroy(d->slot_of);
    g_free(d->stall_active);
    g_free(d);
}

const td_diagnosis *td_diagnosis_of(const td_diagnoses *d, const td_flow *flow)
{
    uint32_t slot = slot_of(d, flow->index);

    if (slot == NOT_DIAGNOSED)
        return NULL;
    return slot == LONE_SYN_SLOT ? &d->lone_syn : &d->flows[slot];
}

uint32_t td_diagnoses_stall_active(const td_diagnoses *d, guint stall)
{
    return stall < td_stalls_count(td_engine_stalls(d->engine)) ? d->stall_active[stall] : 0;
}

const td_engine *td_diagnoses_engine(const td_diagnoses *d)
{
    return d->engine;
}
