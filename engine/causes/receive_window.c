/* receive-window: the receiver's window, not the network, held the flight flat
 * (flight.c's limit and plateau; the rule itself is td_cause_window_held). */
#include "cause.h"

static bool holds(const td_judge *j)
{
    return td_cause_flight_known(j) && td_cause_window_held(j);
}

static void cost(const td_judge *j, td_diagnosis *d)
{
    td_cost_against_group(d, j, j->x->by_sender, TD_SET_SENDER_NOT_RWND, TD_REF_SENDER_FLOWS);
}

static uint32_t evidence_frame(const td_judge *j)
{
    return j->x->f->first_rwnd_frame;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    g_snprintf(buf, size, "The receiver's window held the flight %.0f%% of the time (largest window %u B)",
               td_flight_share(v->f, TD_LIMIT_RWND), v->f->max_window);
}

static td_advice advice(const td_cause_view *v G_GNUC_UNUSED)
{
    return (td_advice) {
        "Let the receiver's window grow: drop a fixed SO_RCVBUF (it turns autotuning off), raise "
        "net.ipv4.tcp_rmem (Linux) or net.inet.tcp.autorcvbufmax (macOS)",
        "The window the receiver offers (tcp.window_size) stays flat now; after the change it grows with "
        "the transfer" };
}

const td_cause_ops td_cause_receive_window = {
    .id = TD_CAUSE_RECEIVE_WINDOW,
    .name = "receive-window",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .who = td_cause_at_receiver,
    .advice = advice,
    .chart = TD_CHART_PLATEAU,
    .figures = &td_plateau_figures,
};
