/* Per-host rules over a finished engine: each client's ECN lottery and SYN options,
 * each sender's offload. */
#include "hosts.h"

#include <string.h>

#include "addr.h"
#include "median.h"
#include "offload.h"
#include "options.h"
#include "time_budget.h"

/* Durations and rates of a set of flows, by group: 0 other, 1 ECN (double each). */
typedef struct ecn_groups {
    GArray *durations[2], *rates[2];
} ecn_groups;

/* One server as one client met it. ECN flows are compared with the client's other
 * flows to the same server: servers differ (one runs CUBIC, which cuts on every echo,
 * another BBR, which does not), so a client's ECN flows pooled across servers would
 * make its fast ECN flows to one server look slow because of another's. */
typedef struct server_pair {
    td_addr    server;
    ecn_groups flows;
    td_client_summary figures;  /* the medians and slowdown of these flows alone */
} server_pair;

/* Per-client measurements while the flows are read; settled into the summary. */
typedef struct client_acc {
    td_client_summary s;
    ecn_groups  all;            /* every server: the figures shown when no server compares */
    GHashTable *pairs;          /* server td_addr -> server_pair (keys live in the pairs) */
} client_acc;

/* What the sender rules need of one flow's busiest direction. */
typedef struct sender_flow {
    bool     offloaded, capped, ecn, retransmitted;
    td_addr  network;           /* the receiver's /24 or /48 */
    double   rate;
} sender_flow;

typedef struct sender_acc {
    td_sender_summary s;
    GArray *flows;              /* sender_flow */
} sender_acc;

struct td_hosts {
    td_hosts_config cfg;
    GPtrArray  *clients, *senders;          /* client_acc, sender_acc in first-appearance order */
    GHashTable *client_by_addr, *sender_by_addr;    /* td_addr -> acc (keys live in the accs) */
};

void td_hosts_config_defaults(td_hosts_config *cfg)
{
    cfg->ecn_slowdown_pct = 200;
}

const char *td_sender_offload_name(td_sender_offload offload)
{
    switch (offload) {
    case TD_SENDER_OFFLOAD_MIXED:         return "mixed";
    case TD_SENDER_OFFLOAD_ALL_CAPPED:    return "all-capped";
    case TD_SENDER_OFFLOAD_ALL_OFFLOADED: return "all-offloaded";
    case TD_SENDER_OFFLOAD_UNKNOWN:       break;
    }
    return "unknown";
}

void td_common_traits(unsigned common, char *buf, size_t size)
{
    GString *s = g_string_new("");

    if (common & TD_COMMON_ECN)
        g_string_append(s, common & TD_COMMON_ECN_AS_OFFLOADED ? "ecn (as the offloaded)" : "ecn");
    if (common & TD_COMMON_DESTINATION)
        g_string_append(s, s->len ? ",destination" : "destination");
    if (common & TD_COMMON_RETRANSMISSION)
        g_string_append(s, s->len ? ",retransmission" : "retransmission");
    g_strlcpy(buf, s->len ? s->str : "nothing", size);
    g_string_free(s, TRUE);
}

/* ---------------------------------------------------------------- clients */

static void append_double(GArray **values, double v)
{
    if (!*values)
        *values = g_array_new(FALSE, FALSE, sizeof(double));
    g_array_append_val(*values, v);
}

/* The median of a group, -1 when it is empty. */
static double group_median(GArray *values)
{
    return values ? td_median((double *)(void *)values->data, values->len) : -1;
}

static uint64_t flow_payload(const td_flow *flow)
{
    return td_flow_sent(flow, 0)->payload_bytes + td_flow_sent(flow, 1)->payload_bytes;
}

/* A connection counts for its client when it has settled (its analyses are final),
 * is not past the settler's history, and its SYN was captured (which also names the
 * client). */
static bool counts_for_client(const td_flow *flow)
{
    td_handshake scratch;
    return flow->settled && !flow->forgotten && td_flow_roles_known(flow) && td_flow_hs(flow, &scratch)->first_syn_frame;
}

/* The options counted are the last SYN's (a retry's, when the SYN was retried). */
static void note_syn_without_options(td_client_summary *s, const td_handshake *hs)
{
    s->opts_missing++;
    if (!s->opts_missing_frame || hs->last_syn_frame < s->opts_missing_frame)
        s->opts_missing_frame = hs->last_syn_frame;
}

/* A flow's rate as the ECN rule compares it: all its payload over its active time,
 * or < 0 when it was active no time. */
static double flow_rate(const td_flow *flow, double seconds)
{
    return seconds > 0 ? (double)flow_payload(flow) / seconds : -1;
}

/* The time the flow was active (time_budget.h): idle time after a reply, keep-alive
 * and the close, is no part of how fast it ran, as in the diagnosis. */
static double flow_seconds(const td_flow *flow)
{
    return (double)td_time_budget_active(td_flow_time_budget(flow)) / 1e9;
}

/* A slowdown the configured threshold calls slower (200 % = twice as slow). */
static bool passes(double slowdown, const td_hosts_config *cfg)
{
    return slowdown > 0 && slowdown * 100 >= cfg->ecn_slowdown_pct;
}

static void add_to_groups(ecn_groups *g, bool ecn, double seconds, double rate)
{
    append_double(&g->durations[ecn], seconds);
    if (rate >= 0)
        append_double(&g->rates[ecn], rate);
}

static void free_groups(ecn_groups *g)
{
    for (int i = 0; i < 2; i++) {
        if (g->durations[i])
            g_array_free(g->durations[i], TRUE);
        if (g->rates[i])
            g_array_free(g->rates[i], TRUE);
        g->durations[i] = g->rates[i] = NULL;
    }
}

static void free_pair(gpointer data)
{
    server_pair *p = data;
    free_groups(&p->flows);
    g_free(p);
}

static void free_client(gpointer data)
{
    client_acc *c = data;
    if (c->pairs)
        g_hash_table_destroy(c->pairs);
    g_free(c);
}

static server_pair *pair_of(client_acc *c, const td_addr *server)
{
    server_pair *p;

    if (!c->pairs)
        c->pairs = g_hash_table_new_full(td_addr_hash, td_addr_equal, NULL, free_pair);
    p = g_hash_table_lookup(c->pairs, server);
    if (!p) {
        p = g_new0(server_pair, 1);
        p->server = *server;
        g_hash_table_insert(c->pairs, &p->server, p);
    }
    return p;
}

static void add_client_flow(client_acc *c, const td_flow *flow)
{
    td_handshake scratch;
    const td_handshake *hs = td_flow_hs(flow, &scratch);
    const td_syn_options *syn = &hs->opts[flow->client];
    bool ecn = td_ecn_negotiated(flow->ecn_outcome);
    double seconds = flow_seconds(flow), rate = flow_rate(flow, seconds);

    c->s.conns++;
    c->s.ecn_requested += td_ecn_syn_requests(hs->first_syn_flags);
    c->s.ecn_negotiated += ecn;
    if (syn->complete) {
        c->s.opts_known++;
        if ((syn->present & TD_OPT_NEGOTIATED) != TD_OPT_NEGOTIATED)
            note_syn_without_options(&c->s, hs);
    }
    add_to_groups(&c->all, ecn, seconds, rate);
    add_to_groups(&pair_of(c, &flow->addr[1 - flow->client])->flows, ecn, seconds, rate);
}

/* The summary's medians and slowdown from one set of groups. */
static void summarise(td_client_summary *s, const ecn_groups *g)
{
    s->other_median_duration_s = group_median(g->durations[0]);
    s->ecn_median_duration_s = group_median(g->durations[1]);
    s->other_median_rate = group_median(g->rates[0]);
    s->ecn_median_rate = group_median(g->rates[1]);
    s->ecn_slowdown = s->ecn_median_rate > 0 && s->other_median_rate >= 0 ? s->other_median_rate / s->ecn_median_rate : 0;
}

/* Which of two servers comes first when their slowdowns tie, so that the summary
 * does not depend on a hash table's order. */
static bool before(const td_addr *a, const td_addr *b)
{
    return a->len != b->len ? a->len < b->len : memcmp(a->bytes, b->bytes, a->len) < 0;
}

/* Each server's slowdown; the client's figures are those of the server where its ECN
 * flows fared worst against its other flows to it, or, when no server got both
 * kinds, every flow's medians with no slowdown (nothing alike to compare). */
static void settle_client(client_acc *c, const td_hosts_config *cfg)
{
    td_client_summary *s = &c->s;
    const server_pair *worst = NULL;
    GHashTableIter it;
    gpointer value;

    if (c->pairs) {
        g_hash_table_iter_init(&it, c->pairs);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
            server_pair *p = value;
            summarise(&p->figures, &p->flows);
            free_groups(&p->flows);     /* the medians are all the flows' questions need */
            if (p->figures.ecn_slowdown > 0 &&
                (!worst || p->figures.ecn_slowdown > worst->figures.ecn_slowdown ||
                 (p->figures.ecn_slowdown == worst->figures.ecn_slowdown && before(&p->server, &worst->server))))
                worst = p;
        }
    }
    summarise(s, &c->all);
    free_groups(&c->all);
    if (worst) {
        s->ecn_median_duration_s = worst->figures.ecn_median_duration_s;
        s->other_median_duration_s = worst->figures.other_median_duration_s;
        s->ecn_median_rate = worst->figures.ecn_median_rate;
        s->other_median_rate = worst->figures.other_median_rate;
    }
    s->ecn_slowdown = worst ? worst->figures.ecn_slowdown : 0;
    s->ecn_slower = passes(s->ecn_slowdown, cfg);
}

static void build_clients(td_hosts *h, const td_engine *engine)
{
    const td_flow *flow;

    /* A client is summarised only once one of its flows carried data: a source that
     * only ever sent SYNs (a flood's forged addresses, a scan) has no transfer to
     * compare, and would cost a summary per flow. So first the clients whose flows
     * carried data, then every connection of those clients. */
    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        if (!flow_payload(flow) || !counts_for_client(flow) ||
            g_hash_table_contains(h->client_by_addr, &flow->addr[flow->client]))
            continue;
        client_acc *c = g_new0(client_acc, 1);
        c->s.addr = flow->addr[flow->client];
        g_ptr_array_add(h->clients, c);
        g_hash_table_insert(h->client_by_addr, &c->s.addr, c);
    }
    /* the address first: a flood's sources have no summary, and their SYNs need not be read */
    for (guint i = 0; h->clients->len && (flow = td_engine_next_flow(engine, &i)); i++) {
        client_acc *c = td_flow_roles_known(flow) ? g_hash_table_lookup(h->client_by_addr, &flow->addr[flow->client])
                                                  : NULL;
        if (c && counts_for_client(flow))
            add_client_flow(c, flow);
    }
    for (guint i = 0; i < h->clients->len; i++)
        settle_client(g_ptr_array_index(h->clients, i), &h->cfg);
}

/* ---------------------------------------------------------------- senders */

static bool is_capped(td_offload_verdict verdict)
{
    return verdict == TD_OFFLOAD_CAPPED || verdict == TD_OFFLOAD_MSS_CAPPED;
}

/* The busiest direction's analysis, NULL when the flow has none worth a rule. */
static const td_flight *sender_flight(const td_flow *flow, int *sender)
{
    *sender = td_flow_busiest_sender(flow);
    const td_flight *f = *sender < 0 ? NULL : td_flow_flight(flow, *sender);
    return f && !f->unknown_reason ? f : NULL;
}

/* The receiver's network: /24 for IPv4, /48 for IPv6. */
static td_addr network_of(const td_addr *addr)
{
    td_addr net = *addr;
    size_t keep = addr->len == 4 ? 3 : 6;
    memset(net.bytes + keep, 0, sizeof net.bytes - keep);
    return net;
}

/* A retransmission came before the cap (or, without super-packets, at all). */
static bool retransmitted_before_cap(const td_flight *f)
{
    uint32_t cap_start = f->seg.result.cap_start_frame;
    return f->first_retransmission_frame && (!cap_start || f->first_retransmission_frame < cap_start);
}

static void add_sender_flow(sender_acc *a, const td_flow *flow, int sender, const td_flight *f)
{
    sender_flow x = {
        .offloaded = f->seg.result.verdict == TD_OFFLOAD_OFFLOADED,
        .capped = is_capped(f->seg.result.verdict),
        .ecn = td_ecn_negotiated(flow->ecn_outcome),
        .retransmitted = retransmitted_before_cap(f),
        .network = network_of(&flow->addr[1 - sender]),
        .rate = td_flight_throughput(f),
    };
    g_array_append_val(a->flows, x);
}

/* Which trait the capped flows all share: by comparing each flow with the first
 * capped one. *all_offloaded tells whether every offloaded flow shares it too. */
typedef bool (*trait_equal)(const sender_flow *a, const sender_flow *b);

static bool same_ecn(const sender_flow *a, const sender_flow *b) { return a->ecn == b->ecn; }
static bool same_network(const sender_flow *a, const sender_flow *b) { return td_addr_equal(&a->network, &b->network); }
static bool same_retransmitted(const sender_flow *a, const sender_flow *b) { return a->retransmitted == b->retransmitted; }

static bool capped_share(const GArray *flows, const sender_flow *first, trait_equal equal, bool *all_offloaded)
{
    bool all_capped = true;

    *all_offloaded = true;
    for (guint i = 0; i < flows->len; i++) {
        const sender_flow *x = &g_array_index(flows, sender_flow, i);
        if (x->capped)
            all_capped = all_capped && equal(x, first);
        else if (x->offloaded)
            *all_offloaded = *all_offloaded && equal(x, first);
    }
    return all_capped;
}

/* Traits every flow without offload shares and not every offloaded flow does.
 * ECN is named even when the offloaded flows share it ("ecn (as the offloaded)"):
 * offload and ECN meet in the stacks (TSO of CWR segments), so an analyst must see it. */
static unsigned common_traits(const GArray *flows)
{
    const sender_flow *first = NULL;
    unsigned common = 0;
    bool all_offloaded;

    for (guint i = 0; i < flows->len && !first; i++)
        if (g_array_index(flows, sender_flow, i).capped)
            first = &g_array_index(flows, sender_flow, i);
    if (!first)
        return 0;
    if (first->ecn && capped_share(flows, first, same_ecn, &all_offloaded))
        common |= TD_COMMON_ECN | (all_offloaded ? TD_COMMON_ECN_AS_OFFLOADED : 0);
    if (capped_share(flows, first, same_network, &all_offloaded) && !all_offloaded)
        common |= TD_COMMON_DESTINATION;
    if (first->retransmitted && capped_share(flows, first, same_retransmitted, &all_offloaded) && !all_offloaded)
        common |= TD_COMMON_RETRANSMISSION;
    return common;
}

static void settle_sender(sender_acc *a)
{
    td_sender_summary *s = &a->s;
    GArray *rates[2] = { NULL, NULL };      /* capped, offloaded */

    for (guint i = 0; i < a->flows->len; i++) {
        const sender_flow *x = &g_array_index(a->flows, sender_flow, i);
        if (x->offloaded) {
            s->offloaded_flows++;
            append_double(&rates[1], x->rate);
        } else if (x->capped) {
            s->capped_flows++;
            append_double(&rates[0], x->rate);
        }
    }
    if (s->offloaded_flows && s->capped_flows) {
        s->offload = TD_SENDER_OFFLOAD_MIXED;
        s->common = (uint8_t)common_traits(a->flows);
    } else if (s->capped_flows > 1) {
        s->offload = TD_SENDER_OFFLOAD_ALL_CAPPED;     /* a host setting, not a per-flow problem */
    } else if (s->offloaded_flows) {
        s->offload = TD_SENDER_OFFLOAD_ALL_OFFLOADED;
    }
    s->capped_median_rate = group_median(rates[0]);
    s->offloaded_median_rate = group_median(rates[1]);
    for (int g = 0; g < 2; g++)
        if (rates[g])
            g_array_free(rates[g], TRUE);
    g_array_free(a->flows, TRUE);
    a->flows = NULL;
}

static void build_senders(td_hosts *h, const td_engine *engine)
{
    const td_flow *flow;

    for (guint i = 0; (flow = td_engine_next_flow(engine, &i)); i++) {
        int sender;
        const td_flight *f = flow->settled && !flow->forgotten ? sender_flight(flow, &sender) : NULL;
        if (!f)
            continue;
        sender_acc *a = g_hash_table_lookup(h->sender_by_addr, &flow->addr[sender]);
        if (!a) {
            a = g_new0(sender_acc, 1);
            a->s.addr = flow->addr[sender];
            a->flows = g_array_new(FALSE, FALSE, sizeof(sender_flow));
            g_ptr_array_add(h->senders, a);
            g_hash_table_insert(h->sender_by_addr, &a->s.addr, a);
        }
        add_sender_flow(a, flow, sender, f);
    }
    for (guint i = 0; i < h->senders->len; i++)
        settle_sender(g_ptr_array_index(h->senders, i));
}

/* ---------------------------------------------------------------- API */

td_hosts *td_hosts_build(const td_engine *engine, const td_hosts_config *cfg)
{
    td_hosts *h = g_new0(td_hosts, 1);

    h->cfg = *cfg;
    h->clients = g_ptr_array_new_with_free_func(free_client);
    h->senders = g_ptr_array_new_with_free_func(g_free);
    h->client_by_addr = g_hash_table_new(td_addr_hash, td_addr_equal);
    h->sender_by_addr = g_hash_table_new(td_addr_hash, td_addr_equal);
    build_clients(h, engine);
    build_senders(h, engine);
    return h;
}

void td_hosts_free(td_hosts *h)
{
    if (!h)
        return;
    g_hash_table_destroy(h->client_by_addr);
    g_hash_table_destroy(h->sender_by_addr);
    g_ptr_array_free(h->clients, TRUE);
    g_ptr_array_free(h->senders, TRUE);
    g_free(h);
}

guint td_hosts_client_count(const td_hosts *h)
{
    return h->clients->len;
}

const td_client_summary *td_hosts_client_at(const td_hosts *h, guint i)
{
    return i < h->clients->len ? &((const client_acc *)g_ptr_array_index(h->clients, i))->s : NULL;
}

guint td_hosts_sender_count(const td_hosts *h)
{
    return h->senders->len;
}

const td_sender_summary *td_hosts_sender_at(const td_hosts *h, guint i)
{
    return i < h->senders->len ? &((const sender_acc *)g_ptr_array_index(h->senders, i))->s : NULL;
}

static const client_acc *client_of(const td_hosts *h, const td_flow *flow)
{
    return td_flow_roles_known(flow) ? g_hash_table_lookup(h->client_by_addr, &flow->addr[flow->client]) : NULL;
}

const td_client_summary *td_hosts_client_of(const td_hosts *h, const td_flow *flow)
{
    const client_acc *c = client_of(h, flow);
    return c ? &c->s : NULL;
}

/* The sender summary of the flow's busiest direction, and that direction's analysis. */
static const sender_acc *sender_of(const td_hosts *h, const td_flow *flow, const td_flight **f)
{
    int sender;

    *f = sender_flight(flow, &sender);
    return *f ? g_hash_table_lookup(h->sender_by_addr, &flow->addr[sender]) : NULL;
}

const td_sender_summary *td_hosts_sender_of(const td_hosts *h, const td_flow *flow)
{
    const td_flight *f;
    const sender_acc *a = sender_of(h, flow, &f);
    return a ? &a->s : NULL;
}

const td_client_summary *td_hosts_ecn_slower_of(const td_hosts *hosts, const td_flow *flow)
{
    const client_acc *c;
    const server_pair *p;
    double rate;

    /* the cheap test first: most flows of a flood never negotiated ECN */
    if (!hosts || !td_ecn_negotiated(flow->ecn_outcome))
        return NULL;
    c = client_of(hosts, flow);
    if (!c || !c->s.ecn_slower)
        return NULL;
    /* Like with like: the client's ECN flows to this flow's server were slower than
     * its other flows to it by the threshold, and so was this flow itself against
     * those: a flow as fast as its reference is not slow because other ECN flows were. */
    p = c->pairs ? g_hash_table_lookup(c->pairs, &flow->addr[1 - flow->client]) : NULL;
    rate = flow_rate(flow, flow_seconds(flow));
    if (!p || !passes(p->figures.ecn_slowdown, &hosts->cfg) || rate <= 0 ||
        !passes(p->figures.other_median_rate / rate, &hosts->cfg))
        return NULL;
    return &c->s;
}

bool td_hosts_offload_unused(const td_hosts *h, const td_flow *flow)
{
    const td_flight *f;
    const sender_acc *a = sender_of(h, flow, &f);

    /* A cap the flow itself explains (a collapsed window, a flight plateau) is its
     * diagnosis, not offload's. */
    return a && a->s.offload == TD_SENDER_OFFLOAD_MIXED && is_capped(f->seg.result.verdict) &&
           f->seg.result.cap_cause == TD_CAP_CAUSE_NONE;
}
