/* client-delay: the client kept the server waiting: a connection opened and not used,
 * or a request paused half-sent (time_budget.c's client waits, less the round trip).
 * Its pauses after an answer are think time, never a delay (issue 37). */
#include "cause.h"

static int64_t waited_ns(const td_flow *flow)
{
    return td_flow_time_budget(flow)->answer_wait_ns[TD_SPAN_CLIENT_WAIT];
}

static bool holds(const td_judge *j)
{
    return td_cause_dominates(j, waited_ns(j->flow));
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, waited_ns(j->flow), TD_REF_NONE);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return td_flow_time_budget(j->flow)->longest_frame[TD_SPAN_CLIENT_WAIT];
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    char waited[64], longest[64];

    td_cause_span_words(td_flow_time_budget(v->flow), waited_ns(v->flow), TD_SPAN_CLIENT_WAIT, waited, longest,
                        sizeof waited);
    g_snprintf(buf, size, "The client kept the server waiting %s before sending (%s): the client application's "
               "time", waited, longest);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Look at the client application: what it did between opening the connection (or starting a request) and "
        "sending it (a slow producer, a connection opened too early); the server and the network were waiting on it",
        "Capture on the client: the gap before its request is there too" };
}

const td_cause_ops td_cause_client_delay = {
    .id = TD_CAUSE_CLIENT_DELAY,
    .name = "client-delay",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_client,
    .advice = advice,
    .chart = TD_CHART_NONE_BUDGET,
    .figures = &td_budget_figures,
};
