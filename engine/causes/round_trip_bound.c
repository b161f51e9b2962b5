/* round-trip-bound: a short exchange on a long path, whose round trips were where its
 * time went. */
#include "cause.h"

#include "units.h"

/* The path's round trip: the handshake's, or the data's mean when shorter (a
 * handshake whose SYN retry crossed the SYN-ACK looks longer than the path). */
static int64_t path_rtt_ns(const td_flow *flow, const td_cause_facts *x)
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
static int64_t round_trip_cost_ns(const td_judge *j)
{
    const td_config *cfg = j->cfg;
    const td_time_budget *b = td_flow_time_budget(j->flow);
    int64_t rtt = path_rtt_ns(j->flow, j->x), ref = (int64_t)cfg->budget.reference_rtt_ms * 1000000;
    int64_t network = td_time_budget_part(b, TD_TIME_SETUP) + td_time_budget_part(b, TD_TIME_TRANSFER);

    if (!td_flow_roles_known(j->flow) || rtt < (int64_t)cfg->budget.long_rtt_ms * 1000000 || rtt <= ref ||
        td_cause_sends_unasked(j->flow, j->x) || !td_cause_dominates(j, network))
        return 0;
    return (int64_t)((double)network * (1.0 - (double)ref / (double)rtt));
}

static bool holds(const td_judge *j)
{
    return round_trip_cost_ns(j) >= (int64_t)j->cfg->budget.min_cost_ms * 1000000;
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, round_trip_cost_ns(j), TD_REF_REFERENCE_RTT);
}

static uint32_t evidence_frame(const td_judge *j)
{
    td_handshake scratch;

    return td_flow_hs(j->flow, &scratch)->synack_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_time_budget *b = td_flow_time_budget(v->flow);
    char network[64], rtt[64];

    td_format_duration(td_time_budget_part(b, TD_TIME_SETUP) + td_time_budget_part(b, TD_TIME_TRANSFER), network,
                       sizeof network);
    td_format_duration(td_flow_handshake_rtt_ns(v->flow), rtt, sizeof rtt);
    g_snprintf(buf, size, "A short exchange on a long path: round trips of %s took %s of its time", rtt, network);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Fewer round trips (keep connections open, TLS 1.3 or session resumption, batched requests) or a "
        "server closer to the client",
        "The same exchange to a nearby server takes as many round trips, each shorter" };
}

/* The server's distance. */
const td_cause_ops td_cause_round_trip_bound = {
    .id = TD_CAUSE_ROUND_TRIP_BOUND,
    .name = "round-trip-bound",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_server,
    .advice = advice,
    .chart = TD_CHART_NONE_BUDGET,
    .figures = &td_budget_figures,
};
