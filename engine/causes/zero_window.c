/* zero-window: the receiver's window closed to zero and the receiving application set
 * the pace (time_budget.c counts the time at zero). */
#include "cause.h"

#include "units.h"

/* A zero window holds also when the receiver's window held the flight and closed: the
 * reader, not the window's size, set the pace. */
static bool holds(const td_judge *j)
{
    const td_time_budget *b = td_flow_time_budget(j->flow);

    return b->zero_windows && (td_cause_dominates(j, b->zero_window_ns) ||
                               (td_cause_flight_known(j) && td_cause_window_held(j)));
}

/* The reader set the pace of the whole transfer, not only while the window was at
 * zero: measured like a receive window, against the sender's flows its receivers did
 * not hold, when there are any. */
static void cost(const td_judge *j, td_diagnosis *d)
{
    if (!j->x->f || !td_cost_against_group(d, j, j->x->by_sender, TD_SET_SENDER_NOT_RWND, TD_REF_SENDER_FLOWS))
        td_cost_against_own_time(d, j, td_flow_time_budget(j->flow)->zero_window_ns, TD_REF_NONE);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return td_flow_time_budget(j->flow)->zero_window_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_time_budget *b = td_flow_time_budget(v->flow);
    char at_zero[64];

    td_format_duration(b->zero_window_ns, at_zero, sizeof at_zero);
    g_snprintf(buf, size, "The receiver's window closed to zero %u time%s (%s at zero): the receiving "
               "application read slower than the data came", b->zero_windows, b->zero_windows == 1 ? "" : "s",
               at_zero);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Look at the receiving application: it reads slower than the data comes (a slow disk or consumer, a "
        "blocked thread); a bigger buffer only delays the stop",
        "ss -tm on the receiver shows a full receive queue (Recv-Q) while the window is zero; nstat "
        "TcpExtTCPToZeroWindowAdv counts the zero windows" };
}

/* Read from the budget, but drawn as its flight against the window: the reader's pace
 * shows there. */
const td_cause_ops td_cause_zero_window = {
    .id = TD_CAUSE_ZERO_WINDOW,
    .name = "zero-window",
    .flags = TD_CAUSE_FROM_BUDGET | TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_receiver,
    .advice = advice,
    .chart = TD_CHART_PLATEAU,
    .figures = &td_budget_figures,
};
