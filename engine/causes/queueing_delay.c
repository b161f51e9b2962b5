/* queueing-delay: a flow of short exchanges whose round trips took many times the
 * empty path's, queued behind flows that kept a bottleneck's queue full. */
#include "cause.h"

#include "units.h"

/* Its round trips: its network time (setup and transfer) over the round trips it made
 * (its handshake, and its flight's rounds or its exchanges when more: a capture point
 * whose ACK clock is off merges rounds, never exchanges). The empty path: the smaller
 * of its handshake's and of the handshakes of the pair's other flows (one made before
 * the queue built: a SYN-ACK can wait in the queue too). What it cost: that time over
 * the same round trips on the empty path; 0 when the rule does not hold. */
static int64_t queueing_cost_ns(const td_judge *j, int64_t *path_rtt, int64_t *queued_rtt)
{
    const td_flow *flow = j->flow;
    const td_cause_facts *x = j->x;
    const td_time_budget *b = td_flow_time_budget(flow);
    int64_t setup = td_time_budget_part(b, TD_TIME_SETUP);
    int64_t network = setup + td_time_budget_part(b, TD_TIME_TRANSFER);
    int64_t path = td_flow_handshake_rtt_ns(flow), round_trips, queued;

    if (!td_cause_exchange_flow(flow, x))
        return 0;
    if (x->to_server && x->to_server->path_rtt_ns && (!path || x->to_server->path_rtt_ns < path))
        path = x->to_server->path_rtt_ns;
    round_trips = (int64_t)MAX(x->f->rounds, td_time_budget_exchanges(b)) + (setup > 0);
    queued = network / round_trips;
    if (path <= 0 || queued < (int64_t)j->cfg->budget.queue_rtt_ratio * path)
        return 0;
    *path_rtt = path;
    *queued_rtt = queued;
    return network - round_trips * path;
}

static bool holds(const td_judge *j)
{
    int64_t path_rtt, queued_rtt;

    return td_cause_dominates(j, queueing_cost_ns(j, &path_rtt, &queued_rtt));
}

/* The pair's flows that kept sending unasked while this one lived: what filled the
 * queue it waited in. */
static void name_queue_fillers(const td_judge *j, td_diagnosis *d)
{
    const GArray *fillers = j->x->to_server ? j->x->to_server->fillers : NULL;
    const td_flow *flow = j->flow;

    for (guint i = 0; fillers && i < fillers->len; i++) {
        const td_queue_filler *q = &g_array_index(fillers, td_queue_filler, i);
        if (q->stream == flow->stream || q->last_ns < flow->first_ns || q->first_ns > flow->last_ns)
            continue;
        if (d->queue_fillers < TD_QUEUE_FILLERS_MAX)
            d->queue_filler_streams[d->queue_fillers] = q->stream;
        d->queue_fillers++;
    }
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, queueing_cost_ns(j, &d->path_rtt_ns, &d->queued_rtt_ns), TD_REF_EMPTY_PATH);
    name_queue_fillers(j, d);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return td_flow_sent(j->flow, j->x->sender)->first_data_frame;
}

/* The round trips against the empty path's, and who filled the queue. */
static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_diagnosis *diag = v->diag;
    char queued[32], path[32], by[64] = "traffic not in this capture";
    GString *streams = g_string_new(NULL);

    td_format_duration(diag->queued_rtt_ns, queued, sizeof queued);
    td_format_duration(diag->path_rtt_ns, path, sizeof path);
    for (uint32_t i = 0; i < MIN(diag->queue_fillers, (uint32_t)TD_QUEUE_FILLERS_MAX); i++)
        g_string_append_printf(streams, "%s%u", i ? "," : "", diag->queue_filler_streams[i]);
    if (diag->queue_fillers)
        g_snprintf(by, sizeof by, "stream%s %s%s", diag->queue_fillers == 1 ? "" : "s", streams->str,
                   diag->queue_fillers > TD_QUEUE_FILLERS_MAX ? ",..." : "");
    g_string_free(streams, TRUE);
    g_snprintf(buf, size, "Round trips of %s, %.1fx the empty path's %s, while it sent little: queued behind %s",
               queued, (double)diag->queued_rtt_ns / (double)MAX(diag->path_rtt_ns, 1), path, by);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "An AQM at the bottleneck (fq_codel or CAKE on the router or modem, shaped just below the link's "
        "rate): the bulk flows then keep its queue short, and this flow's packets stop waiting behind them",
        "Ping across the bottleneck while the bulk transfer runs: its round trip grows like this flow's; "
        "after the change it stays near the empty path's" };
}

/* Read from the budget too, with its own evidence beside it: who filled the queue. */
static const td_cause_figure FIGURES[] = {
    { TD_F_DIAG_QUEUE_FILLED_BY, NULL }, { TD_F_TIME_EXCHANGES, NULL }, { TD_F_TIME_TRANSFER, NULL },
    { TD_F_TIME_ACTIVE, NULL }, { TD_F_FLOW_IRTT, NULL },
};
static const td_figure_set figures = TD_FIGURE_SET(FIGURES);

/* The client's: what its connections met on the path. */
const td_cause_ops td_cause_queueing_delay = {
    .id = TD_CAUSE_QUEUEING_DELAY,
    .name = "queueing-delay",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_client,
    .advice = advice,
    .chart = TD_CHART_EXCHANGES,
    .figures = &figures,
};
