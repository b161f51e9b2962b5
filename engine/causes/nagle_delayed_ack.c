/* nagle-delayed-ack: Nagle held a sender's small segment until the peer's delayed ACK
 * of the one before, exchange after exchange (nagle.c). */
#include "cause.h"

#include "units.h"

/* Holds that make Nagle with delayed ACKs a pattern, exchange after exchange, rather
 * than a coincidence. */
enum { MIN_NAGLE_HOLDS = 3 };

/* The time the held sender's small segments waited for delayed ACKs, 0 below
 * MIN_NAGLE_HOLDS holds. */
static int64_t held_ns(const td_flow *flow)
{
    const td_nagle *n = td_flow_nagle(flow);
    int held = n ? td_nagle_held_sender(n) : -1;

    return held < 0 || n->side[held].holds < MIN_NAGLE_HOLDS ? 0 : n->side[held].held_ns;
}

static bool holds(const td_judge *j)
{
    return td_cause_dominates(j, held_ns(j->flow));
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, held_ns(j->flow), TD_REF_ONE_ROUND_TRIP);
}

static uint32_t evidence_frame(const td_judge *j)
{
    const td_nagle *n = td_flow_nagle(j->flow);

    return n->side[td_nagle_held_sender(n)].first_frame;
}

/* Whose small segments waited, how often, how long. */
static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_flow *flow = v->flow;
    const td_nagle *n = td_flow_nagle(flow);
    int held = td_nagle_held_sender(n);
    bool roles = td_flow_roles_known(flow);
    char wait[32];

    td_format_duration(n->side[held].held_ns, wait, sizeof wait);
    g_snprintf(buf, size, "The %s's small segments waited for the %s's delayed ACK %u times (Nagle with delayed "
               "ACKs, %s held)", !roles ? "sender" : held == flow->client ? "client" : "server",
               !roles ? "peer" : held == flow->client ? "server" : "client", n->side[held].holds, wait);
}

/* The sender whose small segments Nagle held: its socket option is the fix. */
static const td_addr *who(const td_cause_view *v, const char **role)
{
    return td_cause_endpoint(v, td_nagle_held_sender(td_flow_nagle(v->flow)), role);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Set TCP_NODELAY on the sending socket, or write each request in one call (one send(), writev): "
        "Nagle holds a small segment while an earlier one is unacknowledged, and the peer delays that ACK",
        "After the change each request leaves at once, its parts together; on a Linux peer nstat "
        "TcpExtDelayedACKs stops growing with every exchange" };
}

/* Read from the budget too, with its own evidence beside it: the holds. */
static const td_cause_figure FIGURES[] = {
    { TD_F_TIME_NAGLE_HOLDS, NULL }, { TD_F_TIME_NAGLE_WAIT, NULL }, { TD_F_TIME_EXCHANGES, NULL },
    { TD_F_TIME_ACTIVE, NULL }, { TD_F_FLOW_IRTT, NULL },
};
static const td_figure_set figures = TD_FIGURE_SET(FIGURES);

const td_cause_ops td_cause_nagle_delayed_ack = {
    .id = TD_CAUSE_NAGLE_DELAYED_ACK,
    .name = "nagle-delayed-ack",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = who,
    .advice = advice,
    .chart = TD_CHART_HOLDS,
    .figures = &figures,
};
