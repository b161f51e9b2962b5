/* dead-peer: a silence ended by retransmissions its peer never acknowledged: the peer
 * or the path went away. */
#include "cause.h"

#include "units.h"

/* The endpoint whose retransmissions went unanswered, -1 none (time_budget.h). */
static int unanswered(const td_flow *flow, unsigned *retransmissions)
{
    return td_time_budget_unanswered(td_flow_time_budget(flow), retransmissions);
}

static bool holds(const td_judge *j)
{
    unsigned retransmissions;

    return td_cause_dominates(j, td_time_budget_silence_ns(td_flow_time_budget(j->flow))) &&
           unanswered(j->flow, &retransmissions) >= 0;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_time_budget *b = td_flow_time_budget(v->flow);
    unsigned count;
    int who = unanswered(v->flow, &count);
    char silence[64], sender[64];
    const char *roles_note;

    td_format_duration(td_time_budget_silence_ns(b), silence, sizeof silence);
    td_cause_side_words(v, who, sender, sizeof sender, &roles_note);
    sender[0] = g_ascii_toupper(sender[0]);
    g_snprintf(buf, size, "%s retransmitted %u time%s and its peer never acknowledged (%s%s): the peer or the "
               "path went away", sender, count, count == 1 ? "" : "s", silence, roles_note);
}

/* The peer that went away. */
static const td_addr *who(const td_cause_view *v, const char **role)
{
    unsigned retransmissions;
    int sender = unanswered(v->flow, &retransmissions);

    return td_cause_endpoint(v, sender < 0 ? -1 : 1 - sender, role);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Find what went away: the peer host (crashed, rebooted, unplugged) or a middlebox on the path (a "
        "NAT or firewall that dropped the connection's state)",
        "Capture at the other end: nothing arrives there from this flow after the silence began; nstat "
        "TcpExtTCPAbortOnTimeout grows on the side that gave up" };
}

const td_cause_ops td_cause_dead_peer = {
    .id = TD_CAUSE_DEAD_PEER,
    .name = "dead-peer",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = td_cost_silence,
    .evidence_frame = td_cause_longest_stall_frame,
    .evidence = evidence,
    .who = who,
    .advice = advice,
    .chart = TD_CHART_NONE_BUDGET,
    .figures = &td_budget_figures,
};
