/* retransmission-timeout: silences ended by retransmissions that were answered:
 * timeouts, not fast recovery, where the flow's time went; its cost, the silences as
 * long as a retransmission timer at least. */
#include "cause.h"

static bool holds(const td_judge *j)
{
    unsigned retransmissions;
    const td_time_budget *b = td_flow_time_budget(j->flow);

    return td_cause_dominates(j, td_time_budget_silence_ns(b)) && td_time_budget_unanswered(b, &retransmissions) < 0;
}

/* The silences a timer ended (time_budget.h); when none reached the floor (a stack
 * whose timers are shorter: a data centre's rto_min) nothing tells them from the
 * recoveries, and every silence counts, as the verdict does. */
static int64_t timer_silence_ns(const td_time_budget *b)
{
    int64_t timeouts = td_time_budget_timeouts_ns(b);
    return timeouts > 0 ? timeouts : td_time_budget_silence_ns(b);
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_own_time(d, j, timer_silence_ns(td_flow_time_budget(j->flow)), TD_REF_NONE);
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_time_budget *b = td_flow_time_budget(v->flow);
    char silence[64], longest[64], sender[64];
    const char *roles_note;

    td_cause_span_words(b, timer_silence_ns(b), TD_SPAN_STALL, silence, longest, sizeof silence);
    td_cause_side_words(v, b->longest_stall_side, sender, sizeof sender, &roles_note);
    g_snprintf(buf, size, "Silent for %s until %s retransmitted (timeouts, not fast recovery; %s%s)", silence,
               sender, longest, roles_note);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Find the loss (capture at both ends); tail loss is what RACK and TLP recover (Linux "
        "net.ipv4.tcp_recovery); requests lost into a full accept queue point at the server's backlog",
        "nstat TcpExtTCPTimeouts (Linux) or netstat -s retransmit timeouts on the sender grows with these "
        "flows" };
}

const td_cause_ops td_cause_retransmission_timeout = {
    .id = TD_CAUSE_RETRANSMISSION_TIMEOUT,
    .name = "retransmission-timeout",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = td_cause_longest_stall_frame,
    .evidence = evidence,
    .who = td_cause_at_server,
    .advice = advice,
    .chart = TD_CHART_NONE_BUDGET,
    .figures = &td_budget_figures,
};
