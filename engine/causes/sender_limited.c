/* sender-limited: the sender held its flight on a plateau below the receiver's window,
 * nothing lost (flight.c): the illumos burst cap after a retransmission among them. */
#include "cause.h"

static bool holds(const td_judge *j)
{
    return td_cause_flight_known(j) && j->x->limit == TD_LIMIT_SENDER;
}

/* The plateau against the window it stayed under, for the rounds it lasted. */
static void cost(const td_judge *j, td_diagnosis *d)
{
    const td_plateau *p = td_flight_plateau(j->x->f);

    if (p && p->high && p->min_window > p->high) {
        d->reference = TD_REF_WINDOW_CEILING;
        d->slowdown = (double)p->min_window / p->high;
        d->lost_ns = (int64_t)((double)p->ns * (1.0 - (double)p->high / p->min_window));
    }
}

static uint32_t evidence_frame(const td_judge *j)
{
    const td_plateau *p = td_flight_plateau(j->x->f);

    return p ? p->start_frame : 0;
}

static void evidence(const td_cause_view *v, char *buf, size_t size)
{
    const td_flight *f = v->f;
    const td_plateau *p = td_flight_plateau(f);

    g_snprintf(buf, size, "%s held its flight at %.1f MSS (%u B) for %u round trips, window %u B",
               v->diag->sender == v->flow->client ? "The client" : "The server", (double)p->high / MAX(f->mss, 1),
               p->high, p->rounds, p->min_window);
}

static td_advice advice(const td_cause_view *v)
{
    const td_plateau *p = td_flight_plateau(v->f);

    if (p && p->onset == TD_ONSET_RETRANSMISSION)
        return (td_advice) {
            "The sender caps its burst after a retransmission (illumos before #5295: tcp_snd_burst, 5 "
            "segments): update its stack; check its send buffer and pacing too",
            "The plateau starts at the first retransmission and stays while the window has room "
            "(tcpdiag.flight.headroom)" };
    return (td_advice) {
        "The sender holds its flight below the window: check its send buffer (SO_SNDBUF, "
        "net.ipv4.tcp_wmem) and any pacing cap (SO_MAX_PACING_RATE)",
        "The plateau moves when the sender's limit does, while the receiver's window has room to spare" };
}

const td_cause_ops td_cause_sender_limited = {
    .id = TD_CAUSE_SENDER_LIMITED,
    .name = "sender-limited",
    .flags = TD_CAUSE_COST_SAID,
    .holds = holds,
    .cost = cost,
    .evidence_frame = evidence_frame,
    .evidence = evidence,
    .advice = advice,
    .chart = TD_CHART_PLATEAU,
    .figures = &td_plateau_figures,
};
