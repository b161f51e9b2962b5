/* One answer per flow: every cause that holds (causes/, in their order of precedence),
 * the primary one, what it cost against a reference the capture gives and where it
 * shows first; with no cause, healthy or unknown, and why. */
#include "diagnosis.h"

#include <string.h>

#include "addr.h"
#include "hosts.h"

/* Every cause whose rule holds, as a mask (1 << td_cause). */
static unsigned causes_of(const td_judge *j)
{
    unsigned held = 0;

    for (int c = TD_CAUSE_HOST_STALL; c < TD_CAUSE_UNKNOWN; c++)
        if (td_cause_ops_of((td_cause)c)->holds(j))
            held |= 1u << c;
    return held;
}

/* What the primary cause cost. A measure taken on another span (a plateau's rounds,
 * the flight's measured time, a host stall's wait) cannot cost more than the time the
 * flow was active. */
static void cost_of(const td_judge *j, td_diagnosis *d)
{
    const td_cause_ops *ops = td_cause_ops_of((td_cause)d->cause);

    d->slowdown = 0;
    d->lost_ns = -1;
    d->reference = TD_REF_NONE;
    if (ops->cost)
        ops->cost(j, d);
    d->lost_ns = MIN(d->lost_ns, td_cause_active_ns(j->flow));
}

static uint32_t evidence_frame(const td_judge *j, td_cause cause)
{
    const td_cause_ops *ops = td_cause_ops_of(cause);

    return ops->evidence_frame ? ops->evidence_frame(j) : 0;
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
static td_cause no_cause(const td_flow *flow, const td_cause_facts *x, const char **reason)
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
    else if (td_time_budget_left_by_peer(td_flow_time_budget(flow)) >= 0)
        *reason = "the peer left after the data: its side's FIN went unanswered, which cost the application nothing";
    return TD_CAUSE_NONE;
}

static void diagnose_flow(const td_judge *j, const td_hosts *hosts, td_diagnosis *d)
{
    const td_cause_facts *x = j->x;

    memset(d, 0, sizeof *d);
    d->sender = (int8_t)x->sender;
    d->causes = causes_of(j);
    d->cause = TD_CAUSE_NONE;
    for (int c = TD_CAUSE_HOST_STALL; c < TD_CAUSE_UNKNOWN && d->cause == TD_CAUSE_NONE; c++)
        if (d->causes & (1u << c))
            d->cause = (uint8_t)c;
    if (d->cause == TD_CAUSE_NONE)
        d->cause = (uint8_t)no_cause(j->flow, x, &d->reason);
    cost_of(j, d);
    d->evidence_frame = evidence_frame(j, (td_cause)d->cause);
    /* One answer: a flow the host rule calls slower is not healthy even when no
       analysis of its own shows why (an echo not seen answered, a flow too short). */
    if (d->cause == TD_CAUSE_NONE && td_hosts_ecn_slower_of(hosts, j->flow)) {
        d->cause = TD_CAUSE_UNKNOWN;
        d->reason = "this client's ECN flows are slower than its other flows (tcpdiag.host.ecn_slowdown); the "
                    "capture does not show why";
        if (x->f)
            td_cost_against_group(d, j, x->to_server, TD_SET_CLIENT_WITHOUT_ECN, TD_REF_CLIENT_FLOWS);
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
                td_diagnoses_count_open(d, i);
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
    guint nflows = td_engine_flow_count(engine);
    td_diagnoses *d = td_diagnoses_new(engine, only != NULL, only ? n : with_data(engine));
    const td_stalls *stalls = td_engine_stalls(engine);
    td_groups *groups = td_groups_new();
    td_cause_facts x;
    td_judge j = { engine, td_engine_config(engine), NULL, &x };

    diagnose_lone_syn(td_diagnoses_lone_syn(d));
    GHashTable *by_host = stalls_by_host(stalls);

    /* The facts are gathered twice, first for the groups and then for the causes,
     * rather than kept: a million-flow capture would hold them all at once.
     * Flows that were one SYN read no group and no stall (diagnose_lone_syn): a point
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
        td_cause_gather(flow, &x);
        td_cause_find_groups(groups, flow, &x);
        td_cause_file(flow, &x);
    }
    g_hash_table_destroy(by_host);
    td_groups_sort(groups);
    for (guint k = 0; k < (only ? n : nflows); k++) {
        flow = only ? td_engine_flow_at(engine, only[k]) : td_engine_next_flow(engine, &k);
        if (!flow)
            continue;
        td_diagnosis *slot = td_diagnoses_slot(d, flow);
        if (!flow->more)
            continue;
        td_cause_gather(flow, &x);
        td_cause_find_groups(groups, flow, &x);
        j.flow = flow;
        diagnose_flow(&j, hosts, slot);
    }
    td_groups_free(groups);
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
